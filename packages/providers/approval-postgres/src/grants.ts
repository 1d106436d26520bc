import type { Context } from 'cordis'
import type { ToolExecution } from '@dshkit/tools'
import { PermissionRules, pathArguments, redirectTargets } from '@dshkit/rules'
import { loadCommandParser } from '@dshkit/bash'
import type { Grant, GrantInput, GrantsApi } from '@dshkit/approval'
import { type Db, notify } from './db.js'
import { grantOf, insertGrant, type GrantRow } from './grant-rows.js'

/**
 * The workspace's grants in PostgreSQL. Every check reads the table (one indexed SELECT), so a revoke on
 * any worker or page counts for the next ask everywhere; compiled rules are kept per grant id.
 */
export class PgGrants implements GrantsApi {
  readonly file = undefined
  private readonly compiled = new Map<string, PermissionRules>()

  constructor(
    private readonly db: Db,
    private readonly workspace: string,
    private readonly ctx: Context,
  ) {}

  async list(): Promise<Grant[]> {
    const { rows } = await this.db.query<GrantRow>(`SELECT * FROM ${this.db.t.grants} WHERE workspace = $1 AND revoked_at IS NULL ORDER BY created, id`, [
      this.workspace,
    ])
    return rows.map(grantOf)
  }

  async add(input: GrantInput): Promise<Grant> {
    return this.db.tx(async (client) => {
      const grant = await insertGrant(client, this.db.t.grants, this.workspace, input)
      await notify(client, { schema: this.db.schema, workspace: this.workspace, op: 'grants' })
      return grant
    })
  }

  /** Revokes a grant of this workspace (kept, marked revoked, for the record); false when no live grant has that id. */
  async revoke(id: string, by = 'approval-postgres'): Promise<boolean> {
    return this.db.tx(async (client) => {
      const { rowCount } = await client.query(
        `UPDATE ${this.db.t.grants} SET revoked_at = now(), revoked_by = $3 WHERE id = $1 AND workspace = $2 AND revoked_at IS NULL`,
        [id, this.workspace, by],
      )
      if (rowCount) await notify(client, { schema: this.db.schema, workspace: this.workspace, op: 'grants' })
      return Boolean(rowCount)
    })
  }

  /** The first live grant that allows this call: an exact one for this tool and hash, else a rule that allows it. */
  async match(exec: ToolExecution, hash: string): Promise<Grant | undefined> {
    const grants = await this.list()
    const exact = grants.find((grant) => grant.kind === 'exact' && grant.tool === exec.name && grant.argumentsHash === hash)
    if (exact) return exact
    for (const grant of grants) {
      if (grant.kind !== 'rule') continue
      const rules = await this.rules(grant)
      if (rules.verdict(exec).decision === 'allow') return grant
    }
  }

  private async rules(grant: Extract<Grant, { kind: 'rule' }>): Promise<PermissionRules> {
    let rules = this.compiled.get(grant.id)
    if (!rules) {
      const fs = () => this.ctx.get('fs') as never
      const shellCwd = () => (this.ctx.get('shell') as { cwd?: string } | undefined)?.cwd
      const pathsOf = (exec: ToolExecution) => {
        const tools = this.ctx.get('tools') as { definitions?: ReadonlyMap<string, never> } | undefined
        return tools?.definitions ? pathArguments(tools.definitions, fs)(exec) : () => undefined
      }
      rules = new PermissionRules([{ ...grant.rule, decision: 'allow' }], 'ask', pathsOf, (target, cwd) => redirectTargets(fs, shellCwd)(target, cwd))
      this.compiled.set(grant.id, rules)
    }
    // Command rules need the bash grammar loaded before they can answer.
    if (rules.judgesCommands) await loadCommandParser()
    return rules
  }
}

import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import { ruleSummary, type Grant, type GrantInput, type GrantRule } from '@dshkit/approval'
import { checkGrantRule } from '@dshkit/rules'
import { escapeControls } from '@dshkit/common'

const hex64 = /^[0-9a-f]{64}$/
const MAX_SUMMARY = 300

/** A row of dshkit_approval_grants. */
export interface GrantRow {
  id: string
  workspace: string
  kind: 'exact' | 'rule'
  tool: string
  arguments_hash: string | null
  rule: GrantRule | null
  summary: string
  by: string | null
  created: Date
}

/** Stores a grant in `workspace`; the same exact grant twice (two pages, two workers) is kept once. */
export async function insertGrant(client: pg.ClientBase, table: string, workspace: string, input: GrantInput): Promise<Grant> {
  const grant = makeGrant(input)
  const values = [
    grant.id,
    workspace,
    grant.kind,
    grant.tool,
    grant.kind === 'exact' ? grant.argumentsHash : null,
    grant.kind === 'rule' ? JSON.stringify(grant.rule) : null,
    grant.summary,
    grant.by ?? null,
  ]
  const { rows } = await client.query<GrantRow>(
    `INSERT INTO ${table} (id, workspace, kind, tool, arguments_hash, rule, summary, by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (workspace, tool, arguments_hash) WHERE kind = 'exact' AND revoked_at IS NULL DO NOTHING RETURNING *`,
    values,
  )
  if (rows[0]) return grantOf(rows[0])
  const same = await client.query<GrantRow>(
    `SELECT * FROM ${table} WHERE workspace = $1 AND kind = 'exact' AND tool = $2 AND arguments_hash = $3 AND revoked_at IS NULL`,
    [workspace, grant.tool, values[4]],
  )
  return grantOf(same.rows[0])
}

export function grantOf(row: GrantRow): Grant {
  const base = { id: row.id, created: row.created.toISOString(), tool: row.tool, summary: row.summary, ...(row.by !== null && { by: row.by }) }
  if (row.kind === 'exact') return { ...base, kind: 'exact', argumentsHash: row.arguments_hash ?? '' }
  return { ...base, kind: 'rule', rule: checkGrantRule(row.rule) }
}

function makeGrant(input: GrantInput): Grant {
  if (!input || typeof input !== 'object') throw new TypeError('grants.add() needs { kind: "exact", tool, argumentsHash } or { kind: "rule", rule }')
  const base = { id: `g_${randomBytes(8).toString('hex')}`, created: new Date().toISOString(), ...(typeof input.by === 'string' && { by: clean(input.by) }) }
  if (input.kind === 'exact') {
    if (typeof input.tool !== 'string' || !input.tool) throw new TypeError('an exact grant needs the tool name')
    if (typeof input.argumentsHash !== 'string' || !hex64.test(input.argumentsHash))
      throw new TypeError('an exact grant needs argumentsHash: the 64-hex sha256 of the canonical arguments (ApprovalAsk.argumentsHash)')
    const summary = typeof input.summary === 'string' ? clean(input.summary) : `${clean(input.tool)} with arguments ${input.argumentsHash.slice(0, 12)}…`
    return { ...base, kind: 'exact', tool: input.tool, argumentsHash: input.argumentsHash, summary }
  }
  if (input.kind === 'rule') {
    let rule: GrantRule
    try {
      rule = checkGrantRule(input.rule)
    } catch (error) {
      throw new TypeError(`grant rule: ${(error as Error).message}`)
    }
    return { ...base, kind: 'rule', tool: rule.tool, rule, summary: typeof input.summary === 'string' ? clean(input.summary) : ruleSummary(rule) }
  }
  throw new TypeError('grants.add() needs kind "exact" or "rule"')
}

/** Someone's text for a one-line listing: whitespace folded, controls escaped, bounded. */
function clean(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return escapeControls(line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY)}…` : line)
}

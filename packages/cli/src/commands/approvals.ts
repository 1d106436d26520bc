import { hostname } from 'node:os'
import { Context } from 'cordis'
import { shutdown } from '../runtime.js'
import { visible } from '../terminal.js'

export interface ApprovalsServeOptions {
  /** `postgres://…[?schema=NAME]`: the team's database. */
  db: string
  workspace?: string
  port?: number
  host?: string
}

const say = (line: string) => process.stderr.write(`dshkit: ${visible(line)}\n`)

/**
 * `dshkit approvals serve --db postgres://…`: the approval page (@dshkit/approval-web) on the team's asks
 * and grants (@dshkit/approval-postgres), in a process that runs no tools itself, until Ctrl-C.
 */
export async function approvalsServe(options: ApprovalsServeOptions): Promise<number> {
  // Loaded only here, so other commands do not pay for pg.
  const { parseLocation, redact } = await import('@dshkit/session-store-postgres')
  const { default: ApprovalPostgres } = await import('@dshkit/approval-postgres')
  const { default: ApprovalWeb } = await import('@dshkit/approval-web')
  const shown = redact(options.db)
  let where
  try {
    where = parseLocation(options.db)
  } catch (error) {
    throw new Error(`--db ${shown}: ${(error as Error).message}`)
  }
  if (where.sessionId !== undefined) throw new Error(`--db ${shown}: the team's database takes no #SESSION_ID; drop the part after #`)
  const ctx = new Context()
  try {
    const worker = `approvals-serve:${hostname()}:${process.pid}`
    try {
      await ctx.plugin(ApprovalPostgres, { connectionString: where.connectionString, schema: where.schema, workspace: options.workspace, worker })
    } catch (error) {
      throw new Error(`--db ${shown}: ${redact(firstLine(error))}`)
    }
    await ctx.plugin(ApprovalWeb, { printUrl: false, ...(options.port !== undefined && { port: options.port }), ...(options.host && { host: options.host }) })
    const page = ctx.get('approvalWeb') as { url: string } | undefined
    if (!page) throw new Error('the approval page did not start; see the lines above')
    const workspace = (ctx.get('approval') as unknown as { workspace: string }).workspace
    say(`approve the team's tool calls (workspace ${JSON.stringify(workspace)}, ${shown}) at ${page.url}`)
    say('stop with Ctrl-C')
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    })
    return 0
  } finally {
    await shutdown(ctx)
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]
}

import { explain } from './commands/explain.js'
import { log } from './commands/log.js'
import { rewind } from './commands/rewind.js'
import { replay } from './commands/replay.js'
import { listGrants, revokeGrant } from './commands/grants.js'
import { approvalsServe } from './commands/approvals.js'
import { acceptHooks } from './commands/hooks.js'
import { mcpServe } from './commands/mcp.js'
import { run } from './commands/run.js'
import { stats } from './commands/stats.js'
import { tools } from './commands/tools.js'
import { prepareDemo } from './demo.js'

/** A mistake in the command line itself: answered with the usage text and exit 2. */
export class UsageError extends Error {}

/** The options `main` parses, as `parseArgs` returns them. */
export interface Options {
  config?: string
  root?: string
  log?: string
  http?: string
  json: boolean
  to?: string
  apply: boolean
  force: boolean
  file?: string
  approve?: string
  db?: string
  workspace?: string
  port?: string
  trace: boolean
}

type Command = (rest: string[], options: Options) => Promise<number> | number

/** Each command checks its own arguments, then runs. */
export const COMMANDS: Record<string, Command> = {
  run: runCommand,
  tools: (rest, o) => {
    if (rest.length) throw new UsageError('tools takes no file')
    return tools({ config: o.config, root: o.root, json: o.json })
  },
  mcp: (rest, o) => {
    if (rest[0] !== 'serve' || rest.length > 1) throw new UsageError('mcp takes one subcommand: serve')
    return mcpServe({ config: o.config, root: o.root, log: o.log, http: portOption('--http', o.http) })
  },
  grants: (rest, o) => {
    if (o.file && o.root) throw new UsageError('grants takes --file or --root, not both')
    const where = { file: o.file, root: o.root, json: o.json }
    if (!rest.length) return listGrants(where)
    if (rest[0] !== 'revoke' || rest.length !== 2) throw new UsageError('grants takes no argument (list) or `revoke ID`')
    return revokeGrant(rest[1], where)
  },
  approvals: (rest, o) => {
    if (rest[0] !== 'serve' || rest.length > 1) throw new UsageError('approvals takes one subcommand: serve')
    if (!o.db) throw new UsageError("approvals serve needs --db 'postgres://USER@HOST/DB[?schema=NAME]': the team's database")
    return approvalsServe({ db: o.db, workspace: o.workspace, port: portOption('--port', o.port) })
  },
  hooks: (rest, o) => {
    if (o.file && o.root) throw new UsageError('hooks takes --file or --root, not both')
    if (rest[0] !== 'accept' || rest.length !== 1) throw new UsageError('hooks takes one subcommand: accept')
    return acceptHooks({ file: o.file, root: o.root, json: o.json })
  },
  log: (rest, o) => log({ file: one(rest, 'log takes exactly one SESSION.jsonl file'), json: o.json }),
  rewind: (rest, o) => {
    const file = one(rest, 'rewind takes exactly one SESSION.jsonl file')
    if (!o.to) throw new UsageError('rewind needs --to CALL_ID: the call whose before-state to restore (list the ids with `dshkit log SESSION.jsonl`)')
    return rewind({ file, to: o.to, apply: o.apply, force: o.force, root: o.root, json: o.json })
  },
  explain: (rest, o) => explain({ file: one(rest, 'explain takes exactly one CALLS.jsonl file'), config: o.config, root: o.root, json: o.json }),
  replay: (rest, o) => {
    const file = one(rest, 'replay takes exactly one SESSION.jsonl file (or postgres://…#SESSION_ID)')
    if (!o.config) throw new UsageError('replay needs --config FILE: the configuration to re-judge the recorded calls under')
    return replay({ file, config: o.config, root: o.root, json: o.json })
  },
  stats: (rest, o) => stats({ file: one(rest, 'stats takes exactly one SESSION.jsonl file (or postgres://…#SESSION_ID)'), json: o.json }),
}

async function runCommand(rest: string[], o: Options): Promise<number> {
  if (rest.length > 1) throw new UsageError('run takes at most one CALLS.jsonl file')
  if (o.approve !== undefined && o.approve !== 'web')
    throw new UsageError(`--approve takes "web" (answer approvals on a local web page), got ${JSON.stringify(o.approve)}`)
  const shared = { json: o.json, approve: o.approve as 'web' | undefined, trace: o.trace }
  if (rest[0]) return run({ file: rest[0], config: o.config, root: o.root, log: o.log, ...shared })
  // No file: the bundled demo, in a temporary copy of its workspace.
  const demo = await prepareDemo()
  if (!o.json) process.stderr.write(`dshkit: running the bundled demo in ${demo.root}\n`)
  const where = { config: o.config ?? demo.config, root: o.root ?? demo.root, log: o.log ?? demo.log }
  return run({ file: demo.calls, display: 'demo/calls.jsonl', ...where, ...shared })
}

function one(rest: string[], message: string): string {
  if (rest.length !== 1) throw new UsageError(message)
  return rest[0]
}

function portOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const port = Number(value)
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535 && value.trim() !== ''))
    throw new UsageError(`${name} takes a port number 0-65535 (0 = any free port), got ${JSON.stringify(value)}`)
  return port
}

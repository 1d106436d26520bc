import { escapeControls } from '@dshkit/common'
import { readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
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
import { visible } from './terminal.js'
import { COMMAND_HELP, USAGE } from './usage.js'

class UsageError extends Error {}

const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** Runs the command line; returns the exit code: 0 ran, 1 bad input or boot failure, 2 usage. */
export async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        root: { type: 'string' },
        log: { type: 'string' },
        http: { type: 'string' },
        json: { type: 'boolean', default: false },
        to: { type: 'string' },
        apply: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        file: { type: 'string' },
        approve: { type: 'string' },
        db: { type: 'string' },
        workspace: { type: 'string' },
        port: { type: 'string' },
        trace: { type: 'boolean', default: false },
        version: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error) {
    return usage((error as Error).message)
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  if (values.version) {
    process.stdout.write(`dshkit ${VERSION}\n`)
    return 0
  }
  if (!command) {
    process.stdout.write(USAGE + '\n')
    return values.help ? 0 : 2
  }
  if (!COMMAND_HELP[command]) return usage(`unknown command "${command}"`)
  if (values.help) {
    process.stdout.write(COMMAND_HELP[command] + '\n')
    return 0
  }
  try {
    if (values.root) await checkDirectory(values.root)
    switch (command) {
      case 'run': {
        if (rest.length > 1) throw new UsageError('run takes at most one CALLS.jsonl file')
        if (values.approve !== undefined && values.approve !== 'web')
          throw new UsageError(`--approve takes "web" (answer approvals on a local web page), got ${JSON.stringify(values.approve)}`)
        const approve = values.approve
        const trace = values.trace
        if (rest[0]) return await run({ file: rest[0], config: values.config, root: values.root, log: values.log, json: values.json, approve, trace })
        const demo = await prepareDemo()
        if (!values.json) process.stderr.write(`dshkit: running the bundled demo in ${demo.root}\n`)
        return await run({
          file: demo.calls,
          display: 'demo/calls.jsonl',
          config: values.config ?? demo.config,
          root: values.root ?? demo.root,
          log: values.log ?? demo.log,
          json: values.json,
          approve,
          trace,
        })
      }
      case 'tools':
        if (rest.length) throw new UsageError('tools takes no file')
        return await tools({ config: values.config, root: values.root, json: values.json })
      case 'mcp': {
        if (rest[0] !== 'serve' || rest.length > 1) throw new UsageError('mcp takes one subcommand: serve')
        const port = values.http === undefined ? undefined : Number(values.http)
        if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535 && values.http!.trim() !== ''))
          throw new UsageError(`--http takes a port number 0-65535 (0 = any free port), got ${JSON.stringify(values.http)}`)
        return await mcpServe({ config: values.config, root: values.root, log: values.log, http: port })
      }
      case 'grants': {
        if (values.file && values.root) throw new UsageError('grants takes --file or --root, not both')
        const where = { file: values.file, root: values.root, json: values.json }
        if (!rest.length) return await listGrants(where)
        if (rest[0] !== 'revoke' || rest.length !== 2) throw new UsageError('grants takes no argument (list) or `revoke ID`')
        return await revokeGrant(rest[1], where)
      }
      case 'approvals': {
        if (rest[0] !== 'serve' || rest.length > 1) throw new UsageError('approvals takes one subcommand: serve')
        if (!values.db) throw new UsageError("approvals serve needs --db 'postgres://USER@HOST/DB[?schema=NAME]': the team's database")
        const port = values.port === undefined ? undefined : Number(values.port)
        if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535 && values.port!.trim() !== ''))
          throw new UsageError(`--port takes a port number 0-65535 (0 = any free port), got ${JSON.stringify(values.port)}`)
        return await approvalsServe({ db: values.db, workspace: values.workspace, port })
      }
      case 'hooks':
        if (values.file && values.root) throw new UsageError('hooks takes --file or --root, not both')
        if (rest[0] !== 'accept' || rest.length !== 1) throw new UsageError('hooks takes one subcommand: accept')
        return acceptHooks({ file: values.file, root: values.root, json: values.json })
      case 'log':
        if (rest.length !== 1) throw new UsageError('log takes exactly one SESSION.jsonl file')
        return await log({ file: rest[0], json: values.json })
      case 'rewind':
        if (rest.length !== 1) throw new UsageError('rewind takes exactly one SESSION.jsonl file')
        if (!values.to) throw new UsageError('rewind needs --to CALL_ID: the call whose before-state to restore (list the ids with `dshkit log SESSION.jsonl`)')
        return await rewind({ file: rest[0], to: values.to, apply: values.apply, force: values.force, root: values.root, json: values.json })
      case 'explain':
        if (rest.length !== 1) throw new UsageError('explain takes exactly one CALLS.jsonl file')
        return await explain({ file: rest[0], config: values.config, root: values.root, json: values.json })
      case 'replay':
        if (rest.length !== 1) throw new UsageError('replay takes exactly one SESSION.jsonl file (or postgres://…#SESSION_ID)')
        if (!values.config) throw new UsageError('replay needs --config FILE: the configuration to re-judge the recorded calls under')
        return await replay({ file: rest[0], config: values.config, root: values.root, json: values.json })
      case 'stats':
        if (rest.length !== 1) throw new UsageError('stats takes exactly one SESSION.jsonl file (or postgres://…#SESSION_ID)')
        return await stats({ file: rest[0], json: values.json })
    }
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message)
    // A user mistake (bad file, bad config) is one line, no stack trace.
    if (process.env.DSHKIT_DEBUG) console.error(error)
    for (const line of String((error as Error)?.message ?? error).split('\n')) process.stderr.write(`dshkit: ${visible(line)}\n`)
    return 1
  }
  return 2
}

/** A sandbox root that does not exist would deny every call; say so before booting. */
async function checkDirectory(dir: string) {
  const info = await stat(dir).catch(() => undefined)
  if (!info?.isDirectory())
    throw new Error(`--root ${escapeControls(dir)}: ${info ? 'not a directory' : 'no such directory'}; pass the workspace folder the tools may use`)
}

function usage(message: string) {
  process.stderr.write(`dshkit: ${message}\n\n${USAGE}\n`)
  return 2
}

export const cliPath = fileURLToPath(new URL('./bin.js', import.meta.url))

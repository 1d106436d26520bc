import { escapeControls } from '@dshkit/common'
import { readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { COMMANDS, UsageError } from './dispatch.js'
import { visible } from './terminal.js'
import { COMMAND_HELP, USAGE } from './usage.js'

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
    return await COMMANDS[command](rest, values)
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message)
    // A user mistake (bad file, bad config) is one line, no stack trace.
    if (process.env.DSHKIT_DEBUG) console.error(error)
    for (const line of String((error as Error)?.message ?? error).split('\n')) process.stderr.write(`dshkit: ${visible(line)}\n`)
    return 1
  }
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

import { format } from 'node:util'
import { Context } from 'cordis'
import { bootEntries, readConfigFile } from '@dshkit/dsh-base'
import type { LifecycleEvent, LifecycleOutcome } from '@dshkit/agent-loop'
import { visible } from './terminal.js'
import { isPostgresLocation } from './commands/log-postgres.js'
import { plugPostgresSession } from './postgres-session.js'

export interface BootOptions {
  config?: string
  /** Sandbox root; with --config it overrides the file only when given explicitly. */
  root?: string
  log?: string
  /** Judge only (explain, replay): no session store opens, so a recorded log is never locked, repaired or written. */
  memoryOnly?: boolean
  /** `--approve web`: dsh-base also serves the approval page (@dshkit/approval-web); the command prints its URL. */
  approve?: 'web'
  /** `--trace`: every result carries `meta.trace` (what `dshkit stats` counts deciders from). */
  trace?: boolean
}

type Patch = (config: any, value: string) => any
const keep = (c: any, key: string, patch: object) => (c?.[key] === false ? false : { ...c?.[key], ...patch })

/** Where `--root` and `--log` go in each package's config. */
const rootPatches: Record<string, Patch> = {
  '@dshkit/dsh-base': (c, root) => ({ ...c, 'fs-sandbox': keep(c, 'fs-sandbox', { roots: [root] }), 'fs-local': keep(c, 'fs-local', { cwd: root }) }),
  '@dshkit/fs-sandbox': (c, root) => ({ ...c, roots: [root] }),
  '@dshkit/fs-local': (c, root) => ({ ...c, cwd: root }),
}
const logPatches: Record<string, Patch> = {
  '@dshkit/dsh-base': (c, log) => ({ ...c, log }),
  '@dshkit/session-store-jsonl': (c, path) => ({ ...c, path }),
}

const tracePatches: Record<string, (config: any) => any> = {
  '@dshkit/dsh-base': (c) => ({ ...c, tools: { ...c?.tools, trace: true } }),
  '@dshkit/tools': (c) => ({ ...c, trace: true }),
}

const SESSION_STORES = ['@dshkit/session-store-jsonl', '@dshkit/session-store-postgres']
/** Left out when only judging: they answer asks (never sent in a dry run) and hold a port a live run may be using. */
const RESPONDERS = ['@dshkit/approval-web']

/** dsh-base without its log, session store, session provider or approval page: nothing on disk, no port held. */
function withoutStore(config: any) {
  if (!config || typeof config !== 'object') return config
  const { log: _log, 'session-store-jsonl': _store, 'approval-web': _page, ...rest } = config
  if (rest.providers?.session) rest.providers = { ...rest.providers, session: undefined }
  return rest
}

function patch(entry: any, options: BootOptions) {
  let config = entry?.config
  if (options.memoryOnly && entry?.name === '@dshkit/dsh-base') config = withoutStore(config)
  if (options.root && rootPatches[entry?.name]) config = rootPatches[entry.name](config, options.root)
  if (options.trace && tracePatches[entry?.name]) config = tracePatches[entry.name](config)
  if (options.log && isPostgresLocation(options.log)) {
    // The session is already provided from PostgreSQL: dsh-base plugs neither its memory session nor a JSONL store.
    if (entry?.name === '@dshkit/dsh-base') config = { ...config, log: undefined, session: false, 'session-store-jsonl': false }
  } else if (options.log && logPatches[entry?.name]) config = logPatches[entry.name](config, options.log)
  if (options.approve === 'web' && entry?.name === '@dshkit/dsh-base') config = withApprovalPage(config)
  if (options.approve === 'web' && entry?.name === '@dshkit/approval-web') config = { ...config, printUrl: false }
  return config === entry?.config ? entry : { ...entry, config }
}

/** dsh-base with its approval page on, whatever the file said about it; the command prints the URL, not the plugin. */
function withApprovalPage(config: any) {
  const own = config?.['approval-web']
  return { ...config, 'approval-web': { ...(own && typeof own === 'object' ? own : {}), printUrl: false } }
}

export class BootError extends Error {}

/** Boots dsh-base (or a cordis.yml); each bad entry is one line in `problems`; no tools/loop is a BootError. */
export async function bootRuntime(options: BootOptions) {
  const ctx = new Context()
  let booting = true
  ctx.logger.exporter({
    export(message) {
      if (message.type !== 'warn' && message.type !== 'error') return
      const [first] = message.args
      // cordis logs a plugin that fails to start; during boot that is reported as a problem line instead.
      if (booting && message.type === 'error' && first instanceof Error && message.args.length === 1) return
      const args = message.args.map((arg) => (arg instanceof Error && !process.env.DSHKIT_DEBUG ? arg.message : arg))
      process.stderr.write(`dshkit: ${message.type} [${visible(message.name)}] ${visible(format(...args), { multiline: true })}\n`)
    },
  })
  let entries: unknown[] = [{ name: '@dshkit/dsh-base', config: {} }]
  let source = { label: 'embedded default', baseDir: process.cwd() }
  if (options.config) {
    const file = await readConfigFile(options.config)
    entries = file.entries
    source = { label: options.config, baseDir: file.baseDir }
  } else {
    options = { ...options, root: options.root ?? process.cwd() }
  }
  if (options.memoryOnly) entries = entries.filter((entry: any) => !SESSION_STORES.includes(entry?.name) && !RESPONDERS.includes(entry?.name))
  else if (options.log && isPostgresLocation(options.log)) {
    // --log postgres://… takes the place of any session store the file names; a postgres entry's other options (pool, leaseMs) stay.
    const own = entries.find((entry: any) => entry?.name === '@dshkit/session-store-postgres') as { config?: unknown } | undefined
    entries = entries.filter((entry: any) => !SESSION_STORES.includes(entry?.name))
    await plugPostgresSession(ctx, options.log, own?.config)
  }
  // An option no entry takes would be dropped without a word (a preset that wraps dsh-base takes neither).
  if (options.config && options.root) needsEntry(entries, rootPatches, '--root', source.label, 'set the roots in your config')
  if (options.trace) needsEntry(entries, tracePatches, '--trace', source.label, 'set `trace: true` in the @dshkit/tools config it plugs')
  if (options.approve === 'web' && !entries.some((entry: any) => ['@dshkit/dsh-base', '@dshkit/approval-web'].includes(entry?.name))) {
    throw new BootError(`--approve web needs @dshkit/dsh-base in ${source.label} (or an @dshkit/approval-web entry)`)
  }
  try {
    const report = await bootEntries(
      ctx,
      entries.map((entry) => patch(entry, options)),
      source,
    )
    booting = false
    const missing = ['tools', 'loop'].filter((service) => !ctx.get(service))
    if (missing.length) {
      const why = report.problems.length
        ? report.problems.join('\n')
        : `${source.label}: nothing provides ${missing.map((s) => `"${s}"`).join(' and ')}; include @dshkit/dsh-base (or @dshkit/tools and @dshkit/agent-loop)`
      throw new BootError(why)
    }
    return { ctx, problems: report.problems }
  } catch (error) {
    await shutdown(ctx) // e.g. hands a PostgreSQL session's lease back at once instead of after leaseMs
    throw error
  }
}

function needsEntry(entries: unknown[], patches: Record<string, unknown>, option: string, label: string, instead: string) {
  if (entries.some((entry: any) => Object.hasOwn(patches, entry?.name))) return
  const takers = Object.keys(patches).join(', ')
  throw new BootError(`${option} applies to ${takers} entries; ${label} has none, so it would be ignored: drop ${option} and ${instead}`)
}

/** Why a call line names no registered tool (with the ones there are), or undefined when it does. */
export function unknownTool(ctx: Context, name: string): string | undefined {
  if (ctx.tools.get(name)) return
  return `unknown tool "${name}"; available: ${ctx.tools
    .list()
    .map((d) => d.name)
    .join(', ')}`
}

/** Disposes the top-level plugins, newest first, so stores flush, locks go and temp dirs are removed. */
export async function shutdown(ctx: Context) {
  const fibers = [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers]).filter((fiber) => fiber.parent.fiber === ctx.fiber)
  for (const fiber of fibers.reverse()) await fiber.dispose()
}

/** Fires a session moment; a hook bridge that fails is said on stderr, never the end of the run. */
export async function lifecycle(ctx: Context, event: LifecycleEvent): Promise<LifecycleOutcome | undefined> {
  try {
    return await ctx.loop.lifecycle(event)
  } catch (error) {
    const errors = error instanceof AggregateError ? error.errors : [error]
    for (const e of errors) process.stderr.write(`dshkit: ${event.name} hooks failed: ${visible(String((e as Error)?.message ?? e))}\n`)
    return undefined
  }
}

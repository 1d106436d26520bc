import { constants, type Stats } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Context, isConstructor, type Plugin } from 'cordis'
import Loader from '@cordisjs/plugin-loader'
import { parseDocument } from 'yaml'
import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { fillPolicyFile, fillProtect } from './policy-file.js'
import { allFibers, failureOf, isPluginStartError, oneLine as message, settleFibers } from './fibers.js'

/** One `cordis.yml` entry, as the cordis loader takes it; a misspelled key (`confg:`) is refused, not ignored. */
const Entry = strictConfig({
  id: z.string().optional(),
  name: z.string({ error: 'needs a "name": the package that provides the plugin' }).min(1),
  config: z.unknown().optional(),
  disabled: z.boolean().optional(),
  inject: z.unknown().optional(),
})
type Entry = z.infer<typeof Entry>

/** A cordis.yml mapping; a list of entries alone is taken as is. */
const FileMapping = strictConfig({ plugins: z.array(z.unknown(), { error: 'expected a list of plugin entries, or a mapping with a "plugins" list' }) })

export interface BootReport {
  /** Entries that are up, by display name. */
  loaded: string[]
  /** Always empty: since boot problems reject with a `BootError`, kept so older callers still type-check. */
  problems: string[]
}

/** A boot that did not fully start: one line per problem; what this boot loaded has been unloaded again. */
export class BootError extends Error {
  name = 'BootError'
  constructor(readonly problems: string[]) {
    super(problems.join('\n'))
  }
}

/**
 * Reads and parses a `cordis.yml`: a list of entries, or a mapping with a `plugins` list. Throws one line.
 * A permission-policy config written in it gets `file: <its absolute path>` (unless it sets one), for the trace.
 */
export async function readConfigFile(file: string): Promise<{ entries: unknown[]; baseDir: string }> {
  const path = resolve(file)
  // A device, FIFO or directory could block or never end, and a config past 4 MiB is a mistake: refuse, one line.
  const maxBytes = 4 * 1024 * 1024
  class Refused extends Error {}
  const refuse = (why: string) => new Refused(`cannot read config ${file}: ${why}`)
  const check = (info: Stats) => {
    const kind = info.isDirectory()
      ? 'a directory'
      : info.isFIFO()
        ? 'a FIFO'
        : info.isCharacterDevice()
          ? 'a character device'
          : info.isBlockDevice()
            ? 'a block device'
            : info.isSocket()
              ? 'a socket'
              : 'something other than a file'
    if (!info.isFile()) throw refuse(`it is ${kind}, not a regular file; pass the path of a cordis.yml file`)
    if (info.size > maxBytes) throw refuse(`it is ${info.size} bytes, more than the ${maxBytes} bytes a config file may have`)
  }
  let text: string
  try {
    check(await stat(path))
    // Checked again on the handle: a FIFO swapped in after the stat opens at once (O_NONBLOCK) and is refused.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
    try {
      check(await handle.stat())
      const chunks: Buffer[] = []
      let total = 0
      // Never more than one chunk past the limit, even for a file that grows while it is read.
      for (;;) {
        const chunk = Buffer.alloc(64 * 1024)
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null)
        if (!bytesRead) break
        if ((total += bytesRead) > maxBytes) throw refuse(`it grew past the ${maxBytes} bytes a config file may have while it was read`)
        chunks.push(chunk.subarray(0, bytesRead))
      }
      text = Buffer.concat(chunks, total).toString('utf8')
    } finally {
      await handle.close().catch(() => {})
    }
  } catch (error: any) {
    if (error instanceof Refused) throw error
    throw new Error(`cannot read config ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  const doc = parseDocument(text, { prettyErrors: false })
  if (doc.errors.length) {
    const [error] = doc.errors
    const before = text.slice(0, error.pos[0]).split('\n')
    throw new Error(`${file}:${before.length}:${before.at(-1)!.length + 1}: not valid YAML: ${error.message.split('\n')[0]}`)
  }
  const data: unknown = doc.toJS() ?? []
  const fill = (entries: unknown[]) => fillProtect(fillPolicyFile(entries, path), path, dirname(path))
  if (Array.isArray(data)) return { entries: fill(data), baseDir: dirname(path) }
  if (typeof data !== 'object') throw new Error(`${file}: expected a list of plugin entries, or a mapping with a "plugins" list`)
  const shape = FileMapping.safeParse(data)
  if (!shape.success) throw new Error(`${file}: ${describeIssues(shape.error.issues)}`)
  return { entries: fill(shape.data.plugins), baseDir: dirname(path) }
}

/**
 * Boots a `cordis.yml` through the cordis loader. Any bad entry (unknown package, invalid config or
 * entry key, apply throwing, a service nobody provides) rejects with a `BootError` listing one line per
 * problem, after unloading every entry of this boot: either all of it runs or none of it does.
 * A file that cannot be read or parsed throws a one-line `Error`.
 */
export async function bootConfigFile(ctx: Context, file: string): Promise<BootReport> {
  const { entries, baseDir } = await readConfigFile(file)
  return bootEntries(ctx, entries, { label: file, baseDir })
}

let entryCount = 0

/** Boots already-parsed entries; `baseDir` is where package names resolve from. Rejects like `bootConfigFile`. */
export async function bootEntries(ctx: Context, raw: unknown[], { label = 'config', baseDir = process.cwd() } = {}): Promise<BootReport> {
  const problems: string[] = []
  const prepared: { entry: Entry & { id: string }; display: string; plugin: Plugin }[] = []
  const failures = new Map<string, unknown>()
  for (const [index, item] of raw.entries()) {
    const parsed = Entry.safeParse(item)
    const display = `${label} entry #${index + 1}${typeof (item as any)?.name === 'string' ? ` (${(item as any).name})` : ''}`
    if (!parsed.success) {
      problems.push(`${display}: ${describeIssues(parsed.error.issues)}`)
      continue
    }
    const entry = { ...parsed.data, id: parsed.data.id ?? `e${++entryCount}` }
    if (entry.disabled) continue
    const loaded = await importPlugin(entry.name, baseDir)
    if (typeof loaded === 'string') {
      problems.push(`${display}: ${loaded}`)
      continue
    }
    const invalid = checkConfig(loaded, entry.config)
    if (invalid) {
      problems.push(`${display}: invalid config: ${invalid}`)
      continue
    }
    prepared.push({ entry, display, plugin: reportingApply(loaded, entry.id, failures) })
  }
  if (!ctx.get('loader')) {
    ctx.baseUrl ??= pathToFileURL(baseDir + '/').href
    await ctx.plugin(Loader)
  }
  const loader = ctx.get('loader')!
  for (const { entry, plugin } of prepared) loader.builtins[`dshkit:${entry.id}`] = plugin
  // Added to what an earlier boot loaded: the loader's update replaces the whole list.
  await loader.root.update([...loader.root.data, ...prepared.map(({ entry }) => ({ ...entry, name: `cordis:dshkit:${entry.id}` }))] as any)
  await loader.await()
  await settle(ctx)
  const reported = new Set<unknown>()
  for (const { entry, display } of prepared) {
    if (!failures.has(entry.id)) continue
    const failure = failures.get(entry.id)
    // A bundle names its own failed plugin (dsh-base: `plugin "x" failed to start: …`).
    if (isPluginStartError(failure)) {
      problems.push(`${label}: ${failure.message}`)
      reported.add(failure.cause)
    } else {
      problems.push(`${display}: failed to start: ${message(failure)}`)
    }
  }
  problems.push(...stuckFibers(ctx, reported).map((line) => `${label}: ${line}`))
  if (problems.length) {
    for (const { entry } of prepared) await loader.root.remove(entry.id)
    await settle(ctx)
    throw new BootError(problems)
  }
  return { loaded: prepared.map(({ entry }) => entry.name), problems: [] }
}

/** Waits until no plugin is loading, including plugins that entries plug themselves (bundles). */
export async function settle(ctx: Context) {
  await settleFibers(() => allFibers(ctx))
}

/** Plugins that failed (and were not reported already), or wait for a service nobody provides: one line each. */
function stuckFibers(ctx: Context, reported: Set<unknown>): string[] {
  const lines: string[] = []
  for (const fiber of allFibers(ctx)) {
    const error = failureOf(fiber)
    if (error !== undefined) {
      if (!reported.has(error)) lines.push(`plugin "${fiber.name}" failed to start: ${message(error)}`)
    } else if (fiber.state === 0 /* PENDING */) {
      const missing = Object.keys(fiber.inject).filter((name) => ctx.get(name) === undefined)
      if (missing.length)
        lines.push(`plugin "${fiber.name}" waits for ${missing.map((n) => `"${n}"`).join(', ')}, which nothing provides; add the plugin that provides it`)
    }
  }
  return lines
}

/** Issues as `path: message`, joined into one line. */
function describeIssues(issues: readonly { path?: readonly PropertyKey[] | readonly { key: PropertyKey }[]; message: string }[]) {
  return issues
    .map((issue) => {
      const keys = issue.path?.map((p) => (typeof p === 'object' ? String(p.key) : String(p))) ?? []
      // `needs a "name"` already names its key.
      const named = keys.length && issue.message.includes(JSON.stringify(keys.at(-1)))
      return keys.length && !named ? `${keys.join('.')}: ${issue.message}` : issue.message
    })
    .join('; ')
}

async function importPlugin(name: string, baseDir: string): Promise<Plugin | string> {
  let path: string | undefined
  // Resolve from the config's folder first (the user's project), then from dsh-base's own dependencies.
  for (const base of [resolve(baseDir, 'noop.js'), import.meta.filename ?? new URL(import.meta.url).pathname]) {
    try {
      path = createRequire(base).resolve(name)
      break
    } catch {}
  }
  if (!path) return `package "${name}" not found from ${baseDir}; install it (pnpm add ${name}) or fix the name`
  let exports: any
  try {
    exports = await import(pathToFileURL(path).href)
  } catch (error) {
    return `package "${name}" failed to load: ${message(error)}`
  }
  const plugin = exports?.default ?? exports
  const callable = typeof plugin === 'function' || typeof plugin?.apply === 'function'
  return callable ? plugin : `package "${name}" does not export a cordis plugin (a function, a class, or an object with apply)`
}

function checkConfig(plugin: Plugin, config: unknown): string | undefined {
  const schema = plugin.Config
  if (!schema?.['~standard']) return
  const outcome = schema['~standard'].validate(config)
  if (outcome instanceof Promise) return
  if (!outcome.issues) return
  return describeIssues(outcome.issues as any)
}

/** Same plugin, but a throwing apply is recorded for the boot report instead of escaping the loader. */
function reportingApply(plugin: Plugin, id: string, failures: Map<string, unknown>): Plugin {
  const run = (ctx: Context, config: unknown) => {
    if (typeof plugin !== 'function') return (plugin as Plugin.Object).apply(ctx, config)
    return isConstructor(plugin) ? new (plugin as any)(ctx, config) : (plugin as Plugin.Function)(ctx, config)
  }
  return {
    name: plugin.name,
    inject: plugin.inject,
    Config: plugin.Config,
    provide: plugin.provide,
    async apply(ctx: Context, config: unknown) {
      try {
        await run(ctx, config)
      } catch (error) {
        failures.set(id, error)
      }
    },
  } as Plugin.Object
}

import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context, isConstructor, type Plugin } from 'cordis'
import Loader from '@cordisjs/plugin-loader'
import { parseDocument } from 'yaml'
import { z } from 'zod'

/** One `cordis.yml` entry, as the cordis loader takes it. */
const Entry = z.object({
  id: z.string().optional(),
  name: z.string({ error: 'needs a "name": the package that provides the plugin' }).min(1),
  config: z.unknown().optional(),
  disabled: z.boolean().optional(),
}).passthrough()
type Entry = z.infer<typeof Entry>

const File = z.union([
  z.array(z.unknown()),
  z.object({ plugins: z.array(z.unknown(), { error: '"plugins" must be a list of entries' }) }).passthrough(),
], { error: 'expected a list of plugin entries, or a mapping with a "plugins" list' })

export interface BootReport {
  /** Entries that are up, by display name. */
  loaded: string[]
  /** One line per entry that could not be loaded: what and why. */
  problems: string[]
}

/** Reads and parses a `cordis.yml`: a list of entries, or a mapping with a `plugins` list. Throws one line. */
export async function readConfigFile(file: string): Promise<{ entries: unknown[]; baseDir: string }> {
  const path = resolve(file)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error: any) {
    throw new Error(`cannot read config ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  const doc = parseDocument(text, { prettyErrors: false })
  if (doc.errors.length) {
    const [error] = doc.errors
    const before = text.slice(0, error.pos[0]).split('\n')
    throw new Error(`${file}:${before.length}:${before.at(-1)!.length + 1}: not valid YAML: ${error.message.split('\n')[0]}`)
  }
  const shape = File.safeParse(doc.toJS() ?? [])
  if (!shape.success) throw new Error(`${file}: ${shape.error.issues[0].message}`)
  return { entries: Array.isArray(shape.data) ? shape.data : shape.data.plugins, baseDir: dirname(path) }
}

/**
 * Boots a `cordis.yml` through the cordis loader. Each bad entry (unknown package, invalid config,
 * apply throwing, a service nobody provides) becomes one line in `problems`; good entries still load.
 * A file that cannot be read or parsed throws a one-line `Error`.
 */
export async function bootConfigFile(ctx: Context, file: string): Promise<BootReport> {
  const { entries, baseDir } = await readConfigFile(file)
  return bootEntries(ctx, entries, { label: file, baseDir })
}

let entryCount = 0

/** Boots already-parsed entries; `baseDir` is where package names resolve from. */
export async function bootEntries(ctx: Context, raw: unknown[], { label = 'config', baseDir = process.cwd() } = {}): Promise<BootReport> {
  const problems: string[] = []
  const prepared: { entry: Entry & { id: string }; display: string; plugin: Plugin }[] = []
  const failures = new Map<string, unknown>()
  for (const [index, item] of raw.entries()) {
    const parsed = Entry.safeParse(item)
    const display = `${label} entry #${index + 1}${typeof (item as any)?.name === 'string' ? ` (${(item as any).name})` : ''}`
    if (!parsed.success) {
      problems.push(`${display}: ${parsed.error.issues.map((i) => i.message).join('; ')}`)
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
  const loaded: string[] = []
  for (const { entry, display } of prepared) {
    if (failures.has(entry.id)) {
      problems.push(`${display}: failed to start: ${message(failures.get(entry.id))}`)
      loader.root.remove(entry.id)
    } else {
      loaded.push(entry.name)
    }
  }
  problems.push(...stuckFibers(ctx).map((line) => `${label}: ${line}`))
  return { loaded, problems }
}

/** Waits until no plugin is loading, including plugins that entries plug themselves (bundles). */
export async function settle(ctx: Context) {
  for (let round = 0; round < 100; round++) {
    await new Promise((resolve) => setImmediate(resolve))
    const tasks = fibers(ctx).map((fiber) => fiber.inertia).filter(Boolean)
    if (!tasks.length) return
    await Promise.allSettled(tasks)
  }
}

function fibers(ctx: Context) {
  return [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers])
}

/** Plugins that failed, or wait for a service nobody provides: one line each. */
function stuckFibers(ctx: Context): string[] {
  const lines: string[] = []
  for (const fiber of fibers(ctx)) {
    const error = (fiber as any)._error
    if (error) {
      lines.push(`plugin "${fiber.name}" failed to start: ${message(error)}`)
    } else if (fiber.state === 0 /* PENDING */) {
      const missing = Object.keys(fiber.inject).filter((name) => ctx.get(name) === undefined)
      if (missing.length) lines.push(`plugin "${fiber.name}" waits for ${missing.map((n) => `"${n}"`).join(', ')}, which nothing provides; add the plugin that provides it`)
    }
  }
  return lines
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
  return outcome.issues.map((issue) => {
    const path = issue.path?.map((p) => typeof p === 'object' ? p.key : p).join('.')
    return path ? `${path}: ${issue.message}` : issue.message
  }).join('; ')
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

function message(error: unknown) {
  return error instanceof Error ? error.message.split('\n')[0] : String(error)
}

import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'

// permission-policy's `file` names where its rules were written; a loader that read them from a cordis.yml knows.

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value)

/** Sets `file` on a permission-policy config written in the yml (an object) without a `file` of its own; anything else stays. */
function withFile(config: unknown, file: string): unknown {
  if (!isObject(config) || Object.hasOwn(config, 'file')) return config
  return { ...config, file }
}

/**
 * The entries with `file: <path>` filled into permission-policy's config: a `@dshkit/permission-policy`
 * entry's own, and the `permission-policy` part of a `@dshkit/dsh-base` entry. Entries are copied, never changed.
 */
export function fillPolicyFile(entries: unknown[], file: string): unknown[] {
  return entries.map((entry) => {
    if (!isObject(entry)) return entry
    if (entry.name === '@dshkit/permission-policy') {
      const config = withFile(entry.config, file)
      return config === entry.config ? entry : { ...entry, config }
    }
    if (entry.name === '@dshkit/dsh-base' && isObject(entry.config)) {
      const part = entry.config['permission-policy']
      const filled = withFile(part, file)
      return filled === part ? entry : { ...entry, config: { ...entry.config, 'permission-policy': filled } }
    }
    return entry
  })
}

/** The hook bridges' plugin roots: each one's `hooks/hooks.json` is a policy file. */
const BRIDGES = ['@dshkit/hooks-claude-code', '@dshkit/hooks-codex']

/** Strings in an entry's config that name an existing regular file (rule files, hook settings, scripts), resolved from `baseDir`. */
function namedFiles(value: unknown, baseDir: string, out: Set<string>, depth = 0) {
  if (depth > 32) return
  if (typeof value === 'string') {
    if (value.length > 4096 || value.includes('\0')) return
    const path = resolve(baseDir, value)
    if (statSync(path, { throwIfNoEntry: false })?.isFile()) out.add(path)
  } else if (Array.isArray(value)) {
    for (const item of value) namedFiles(item, baseDir, out, depth + 1)
  } else if (isObject(value)) {
    for (const item of Object.values(value)) namedFiles(item, baseDir, out, depth + 1)
  }
}

/** A bridge's plugins: `<root>/hooks/hooks.json` each, relative to its projectDir (else `baseDir`). */
function pluginHooks(entry: Record<string, unknown>, baseDir: string, out: Set<string>) {
  if (!BRIDGES.includes(entry.name as string) || !isObject(entry.config) || !Array.isArray(entry.config.plugins)) return
  const base = typeof entry.config.projectDir === 'string' ? resolve(baseDir, entry.config.projectDir) : baseDir
  for (const plugin of entry.config.plugins) {
    const root = typeof plugin === 'string' ? plugin : isObject(plugin) && typeof plugin.root === 'string' ? plugin.root : undefined
    if (root) out.add(join(resolve(base, root), 'hooks', 'hooks.json'))
  }
}

/**
 * A `@dshkit/dsh-base` entry's `protect` gets the cordis.yml itself and every file any entry of it names: the tools
 * must not change the files that configure their policy. Entries are copied, never changed.
 */
export function fillProtect(entries: unknown[], file: string, baseDir: string): unknown[] {
  const named = new Set<string>([file])
  for (const entry of entries) {
    if (!isObject(entry)) continue
    namedFiles(entry.config, baseDir, named)
    pluginHooks(entry, baseDir, named)
  }
  return entries.map((entry) => {
    if (!isObject(entry) || entry.name !== '@dshkit/dsh-base') return entry
    const config = isObject(entry.config) ? entry.config : entry.config == null ? {} : undefined
    if (!config) return entry
    const own = Array.isArray(config.protect) ? config.protect : []
    return { ...entry, config: { ...config, protect: [...new Set([...own, ...named])] } }
  })
}

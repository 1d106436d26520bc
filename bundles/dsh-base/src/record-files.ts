import { lstatSync, realpathSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'

/** The hook settings files the bridges read in a project (relative to the first root): never the model's to write. */
export const HOOK_SETTINGS = ['.claude/settings.json', '.claude/settings.local.json', '.codex/hooks.json', '.codex/config.toml']

/** Where the hook bridges keep the settings a person accepted (hook-protocol's ACCEPTED_FILE), relative to the first root. */
export const ACCEPTED_HOOKS = '.dshkit/hooks-accepted.json'

/** A path as a picomatch glob that matches only itself. */
const literal = (path: string) => path.replace(/[\\*?[\]{}()!+@|]/g, '\\$&')

/** Every spelling fs-sandbox and the shell may meet a path by: as given, and real (itself or its folder resolved). */
function spellings(path: string): string[] {
  const abs = resolve(path)
  const all = new Set([abs])
  for (const real of [() => realpathSync(abs), () => join(realpathSync(dirname(abs)), basename(abs))]) {
    try {
      all.add(real())
    } catch {}
  }
  return [...all]
}

/** The record of what the agent did (the session log, its lock, the before-images). */
export function recordPaths(log: string | undefined, checkpoints: string | undefined): string[] {
  const paths = log ? [log, `${log}.lock`] : []
  if (checkpoints) paths.push(checkpoints)
  return paths
}

/** Deny globs for policy files: the model's own tools must neither widen its policy nor erase the record of what it did. */
export function policyGlobs(paths: readonly string[]): string[] {
  return [...new Set(paths.flatMap(spellings).map(literal))]
}

/** A policy file with a second hard link could be written through the other name, which no rule on its path covers. */
export function refuseLinkedPolicyFiles(paths: readonly string[]) {
  for (const path of new Set(paths.flatMap(spellings))) {
    const info = lstatSync(path, { throwIfNoEntry: false })
    if (info?.isFile() && info.nlink > 1)
      throw new Error(
        `the policy file ${path} has ${info.nlink} hard links: the tools could change it through another name; remove the other links (find / -samefile ${path})`,
      )
  }
}

/**
 * The folders between a writable root and each policy file. The sandboxed shell binds each one onto itself, and a mount
 * point cannot be renamed (EBUSY): no `mv conf x && mkdir conf` can put a new file where a policy file was.
 */
export function pinnedFolders(paths: readonly string[], roots: readonly string[]): string[] {
  const pinned = new Set<string>()
  for (const path of new Set(paths.flatMap(spellings))) {
    for (const root of roots) {
      const rel = relative(root, dirname(path))
      if (rel === '' || rel.startsWith('..') || resolve(root, rel) !== dirname(path)) continue
      let dir = root
      for (const part of rel.split(sep)) {
        dir = join(dir, part)
        if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) break
        pinned.add(dir)
      }
    }
  }
  return [...pinned]
}

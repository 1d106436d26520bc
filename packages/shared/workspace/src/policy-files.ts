import { lstatSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { isWithin, resolveRealPathSync } from '@dshkit/fs'
import type { WorkspaceConfig } from './config.js'

/** The project's own hidden folder (user-approval's grants, the accepted hook settings): denied whole by GRANTS_GLOB. */
export const GRANTS_DIR = '.dshkit'
export const GRANTS_GLOB = `**/${GRANTS_DIR}/**`

/** The hook settings files the bridges read in a project (relative to the first root): never the model's to write. */
export const HOOK_SETTINGS = ['.claude/settings.json', '.claude/settings.local.json', '.codex/hooks.json', '.codex/config.toml']

/** Where the hook bridges keep the settings a person accepted (hook-protocol's ACCEPTED_FILE), relative to the first root. */
export const ACCEPTED_HOOKS = `${GRANTS_DIR}/hooks-accepted.json`

/** A path as a picomatch glob that matches only itself. */
const literal = (path: string) => path.replace(/[\\*?[\]{}()!+@|]/g, '\\$&')

/**
 * Every spelling fs-sandbox and the shell may meet the policy files by: as given, real (fs-sandbox's own rule),
 * and with only their folder resolved (a symlinked file by its own name). Computed once; the checks below take it.
 */
export function spellingsOf(paths: readonly string[]): string[] {
  return [
    ...new Set(
      paths.flatMap((path) => {
        const abs = resolve(path)
        return [abs, resolveRealPathSync(abs), join(resolveRealPathSync(dirname(abs)), basename(abs))]
      }),
    ),
  ]
}

/** The record of what the agent did (the session log, its lock, the before-images). */
export function recordPaths(log: string | undefined, checkpoints: string | undefined): string[] {
  const paths = log ? [log, `${log}.lock`] : []
  if (checkpoints) paths.push(checkpoints)
  return paths
}

/** Deny globs for policy files: the model's own tools must neither widen its policy nor erase the record of what it did. */
export function policyGlobs(spelled: readonly string[]): string[] {
  return spelled.map(literal)
}

/** A policy file with a second hard link could be written through the other name, which no rule on its path covers. */
export function refuseLinkedPolicyFiles(spelled: readonly string[]) {
  for (const path of spelled) {
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
export function pinnedFolders(spelled: readonly string[], roots: readonly string[]): string[] {
  const pinned = new Set<string>()
  for (const path of spelled) {
    for (const root of roots) {
      const folder = dirname(path)
      if (folder === root || !isWithin(folder, root)) continue
      let dir = root
      for (const part of relative(root, folder).split(sep)) {
        dir = join(dir, part)
        if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) break
        pinned.add(dir)
      }
    }
  }
  return [...pinned]
}

/** fs-sandbox's rule: the real path of the deepest existing folder, and the rest as written. */
export const realPath = (path: string) => resolveRealPathSync(resolve(path))

/** What decides what the model may do, or records what it did, besides the workspace's own config. */
export interface PolicyFileSources {
  /** user-approval's grants file, when there is one. */
  grants?: string
  /** Further policy files (dsh-base's `protect`), relative to the first root. */
  protect: readonly string[]
  /** The record of what the agent did (`recordPaths`). */
  record: readonly string[]
}

/** Every policy file inside a writable root: outside them no tool writes anyway, and a program cordis.yml names must stay visible. */
export function policyFiles(workspace: Pick<WorkspaceConfig, 'roots'>, sources: PolicyFileSources): string[] {
  const { roots } = workspace
  const project = resolve(roots[0] ?? '.')
  // The grants and the accepted hook settings sit in a hidden `.dshkit`; listed too, so a second hard link to them is refused.
  const own = [...(sources.grants ? [sources.grants] : []), resolve(project, ACCEPTED_HOOKS)]
  const named = [...sources.protect, ...HOOK_SETTINGS].map((file) => resolve(project, file))
  const writable = roots.map(realPath)
  return [...sources.record, ...own, ...named].filter((file) => {
    const spellings = [realPath(file), resolve(file)]
    return writable.some((root) => spellings.some((spelling) => isWithin(spelling, root)))
  })
}

/** The workspace's rules with `extraDeny` added to its deny globs (each once): what the sandboxed shell confines by. */
export function withDeny(workspace: WorkspaceConfig, extraDeny: readonly string[]): WorkspaceConfig {
  const { roots, readOnlyRoots, deny } = workspace
  return { roots, readOnlyRoots, deny: [...deny, ...extraDeny.filter((glob) => !deny.includes(glob))] }
}

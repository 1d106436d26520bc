import nodePath from 'node:path'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs'
import type { ShellChange, ShellChangeKind, ShellFileChange, ShellSpec } from '@dshkit/shell'
import type { Change } from './change-set.js'

/** Why this change to a host path is not allowed, or undefined: fs-sandbox's judgement of a write, then the `shell/change` listeners'. */
export type JudgeWrite = (path: string, change: ShellChangeKind) => Promise<string | undefined>

export interface Applied {
  applied: ShellChange[]
  refused: (ShellChange & { reason: string })[]
}

let temps = 0

/**
 * Judges each change as the file tools' writes are judged, right before applying it, and applies the
 * allowed ones: each file atomically (written beside itself, then renamed over), in an order that keeps
 * the workspace consistent — what a creation replaces first, then folders (outer first), files and links,
 * modes, and the other deletions last (inner first). Nothing under a refused folder is applied.
 */
export interface ApplyOptions {
  /** Awaited before each file's content change lands (recording it); a throw refuses the change. */
  beforeChange?: ShellSpec['beforeChange']
  /** When the command started (ms since the epoch): a path the host changed since is a conflict, not overwritten. */
  since?: number
}

export async function judgeAndApply(root: string, changes: readonly Change[], judge: JudgeWrite, options: ApplyOptions = {}): Promise<Applied> {
  const { beforeChange, since = Number.POSITIVE_INFINITY } = options
  const out: Applied = { applied: [], refused: [] }
  const refusedFolders: string[] = []
  const depth = (change: Change) => change.path.split(nodePath.sep).length
  const phase = (change: Change) =>
    change.kind === 'delete' ? (change.replaced ? 0 : 5) : change.kind === 'folder' ? 1 : change.kind === 'mode' ? 3 : change.kind === 'unsupported' ? 4 : 2
  const ordered = [...changes].sort((a, b) => phase(a) - phase(b) || (phase(a) === 0 || phase(a) === 5 ? depth(b) - depth(a) : depth(a) - depth(b)))
  for (const change of ordered) {
    const path = nodePath.join(root, change.path)
    const shown = { path, change: kindOf(change) }
    const inside = refusedFolders.find((folder) => path.startsWith(`${folder}/`))
    const reason =
      change.kind === 'unsupported'
        ? `the command made ${change.what}, which is not carried over`
        : inside
          ? `its folder ${inside} was refused`
          : ((await judge(path, shown.change)) ?? conflict(change, path, since))
    if (reason) {
      if (change.kind === 'folder') refusedFolders.push(path)
      out.refused.push({ ...shown, reason })
      continue
    }
    const record = beforeChange && fileChange(change, path)
    if (record) {
      try {
        await beforeChange(record)
      } catch (error) {
        out.refused.push({ ...shown, reason: `it was not recorded: ${(error as Error)?.message ?? error}` })
        continue
      }
    }
    try {
      applyOne(change, path)
      out.applied.push(shown)
    } catch (error) {
      if (change.kind === 'folder') refusedFolders.push(path)
      const code = (error as NodeJS.ErrnoException).code
      out.refused.push({
        ...shown,
        reason: code === 'ENOTEMPTY' ? 'it still holds something that was refused' : `applying it failed: ${code ?? String(error)}`,
      })
    }
  }
  return out
}

/** Why landing the change would lose someone else's: the path changed on the host after the command started. */
function conflict(change: Change, path: string, since: number): string | undefined {
  if (change.kind === 'folder' || change.kind === 'unsupported') return undefined
  const stats = lstatSync(path, { throwIfNoEntry: false })
  if (stats && !stats.isDirectory() && stats.ctimeMs > since)
    return "it changed on the host while the command ran (another call, a job or a person wrote it): the command's version was not applied, so nothing is lost; run it again"
}

// A before-image is read whole into memory; past this it is 'unknown' (and a keeper such as fs-checkpoint refuses the change).
const MAX_BEFORE_BYTES = 64 * 1024 * 1024
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** The content change a write or a file deletion makes, for `beforeChange`; other changes (folders, links, modes) carry none. */
function fileChange(change: Change, path: string): ShellFileChange | undefined {
  if (change.kind !== 'write' && !(change.kind === 'delete' && !change.folder)) return undefined
  const after = change.kind === 'write' ? sha256(readFileSync(change.from)) : 'absent'
  const stats = lstatSync(path, { throwIfNoEntry: false })
  // Only a regular file has content to restore; a link or folder a write replaces was deleted (and recorded) before it.
  if (!stats?.isFile()) return change.kind === 'delete' ? undefined : { path, before: 'absent', after }
  if (stats.size > MAX_BEFORE_BYTES) return { path, before: 'unknown', reason: `it is ${stats.size} bytes, over ${MAX_BEFORE_BYTES}`, after }
  try {
    const bytes = readFileSync(path)
    return { path, before: sha256(bytes), bytes, after }
  } catch (error) {
    return { path, before: 'unknown', reason: (error as NodeJS.ErrnoException).code ?? String(error), after }
  }
}

function applyOne(change: Change, path: string) {
  const temp = () => nodePath.join(nodePath.dirname(path), `.dshkit-txn-${process.pid}-${++temps}`)
  switch (change.kind) {
    case 'folder':
      mkdirSync(path)
      chmodSync(path, change.mode)
      return
    case 'write': {
      const tmp = temp()
      landed(tmp, () => {
        copyFileSync(change.from, tmp)
        chmodSync(tmp, change.mode)
        renameSync(tmp, path)
      })
      return
    }
    case 'symlink': {
      const tmp = temp()
      landed(tmp, () => {
        symlinkSync(change.target, tmp)
        renameSync(tmp, path)
      })
      return
    }
    case 'mode':
      chmodSync(path, change.mode)
      return
    case 'delete':
      if (change.folder) rmdirSync(path)
      else unlinkSync(path)
      return
  }
}

/** Runs `write`; if it fails, its temp file does not stay behind. */
function landed(tmp: string, write: () => void) {
  try {
    write()
  } catch (error) {
    rmSync(tmp, { force: true })
    throw error
  }
}

function kindOf(change: Change): ShellChangeKind {
  switch (change.kind) {
    case 'write':
      return change.created ? 'created' : 'modified'
    case 'folder':
      return 'folder'
    case 'symlink':
      return 'symlink'
    case 'mode':
      return 'mode'
    case 'delete':
      return 'deleted'
    case 'unsupported':
      return 'created'
  }
}

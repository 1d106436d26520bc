import { FsError, type FsEntry, type FsService, type TextSlice } from '@dshkit/fs'
import { defineTool, type ToolRunContext } from '@dshkit/tools'
import { z } from 'zod'
import type { FsChange } from '@dshkit/fs'
import { currentContent, noHooks, sha256, whilePinned, type ChangeHooks, type Current } from './changes.js'

const path = z.string().min(1, 'path must not be empty').describe('File path, absolute or relative to the working directory.')

/** FsError messages are written for the model; the code in front tells it what kind of failure it hit. */
async function fsCall<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body()
  } catch (error) {
    if (error instanceof FsError) throw Object.assign(new Error(`${error.code}: ${error.message}`, { cause: error }), { retryable: error.retryable })
    throw error
  }
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Offers the change to `fs/before-change` listeners (a veto stops it), records the intent durably,
 * then runs the write pinned to the real path the before-image was taken from.
 */
async function change<T>(hooks: ChangeHooks, plan: FsChange, write: () => Promise<T>): Promise<T> {
  try {
    await hooks.beforeChange(Object.freeze(plan))
  } catch (error) {
    throw new Error(`${plan.requested} was not changed: ${(error as Error)?.message ?? error}`, { cause: error })
  }
  if (hooks.recording()) {
    const { callId, path, before, after } = plan
    try {
      await hooks.record({ type: plan.tool === 'fs_write' ? 'fs/write-intent' : 'fs/edit-intent', callId, path, before, after })
    } catch (error) {
      throw new Error(`${plan.requested} was not changed: its write intent could not be recorded in the session log (${(error as Error)?.message ?? error})`, {
        cause: error,
      })
    }
  }
  return whilePinned(plan.path, write)
}

/** The edited text, or the FsError editing would fail with; computed here so the intent can name the content it writes. */
function editedText(path: string, now: Current, oldText: string, newText: string, replaceAll?: boolean): string {
  if (!now.bytes) throw now.error ?? new FsError('FS_IO', `${path} could not be read before editing: ${now.reason}`, path)
  let text: string
  try {
    text = fatalUtf8.decode(now.bytes)
  } catch {
    throw new FsError('FS_NOT_TEXT', `${now.path} is not valid UTF-8 text, so it cannot be edited as text`, now.path)
  }
  const count = text.split(oldText).length - 1
  if (count === 0) {
    throw new FsError(
      'FS_NO_MATCH',
      `the text to replace was not found in ${now.path}; read the file again and copy the exact text, including whitespace and indentation`,
      now.path,
    )
  }
  if (count > 1 && !replaceAll) {
    throw new FsError(
      'FS_AMBIGUOUS_MATCH',
      `the text to replace occurs ${count} times in ${now.path}; include more surrounding lines so it matches once, or set replaceAll to replace every occurrence`,
      now.path,
    )
  }
  return text.split(oldText).join(newText)
}

function planOf(tool: FsChange['tool'], run: ToolRunContext, requested: string, now: Current, after: string): FsChange {
  const plan: FsChange = { tool, callId: run.callId, requested, path: now.path, before: now.before, after }
  if (now.bytes) plan.bytes = now.bytes
  if (now.reason) plan.reason = now.reason
  return plan
}

export function fsTools(fs: () => FsService, hooks: ChangeHooks = noHooks) {
  return [readTool(fs, hooks), writeTool(fs, hooks), editTool(fs, hooks), listTool(fs)]
}

/** fs_read: a text file, whole or a window of lines; noted for later change checks. */
function readTool(fs: () => FsService, hooks: ChangeHooks) {
  return defineTool({
    name: 'fs_read',
    description:
      'Read a UTF-8 text file. Without offset/limit it returns the whole file (up to the read limit); ' +
      'for large files pass offset (1-based first line) and limit (number of lines).',
    parameters: z.object({
      path,
      offset: z.number().int().min(1).optional().describe('1-based line number to start at (default 1).'),
      limit: z.number().int().min(1).optional().describe('Most lines to return (default: to the end of the file).'),
    }),
    isConcurrencySafe: () => true,
    idempotent: true,
    fsAccess: (args) => [{ path: args.path, access: 'read' }],
    execute: (args, run) =>
      fsCall(async () => {
        const slice = await fs().readText(args.path, { offset: args.offset, limit: args.limit })
        const whole = slice.startLine === 1 && !slice.hasMore
        // Best effort: a read that cannot be noted still returned the text; the session's next append reports a broken log.
        if (hooks.recording()) {
          // The real path, as intents name it, so a reader can match a read to a later change.
          const real = await fs()
            .realpath(args.path)
            .catch(() => fs().resolve(args.path))
          await hooks
            .record({ type: 'fs/observed', callId: run.callId, path: real, ...(whole ? { hash: sha256(slice.text) } : { partial: true }) })
            .catch(() => {})
        }
        return describeSlice(args.path, slice)
      }),
  })
}

/** fs_write: a whole file, atomically, through the change hooks. */
function writeTool(fs: () => FsService, hooks: ChangeHooks) {
  return defineTool({
    name: 'fs_write',
    description: 'Write a UTF-8 text file, replacing it whole (atomically) or creating it and any missing parent directories.',
    parameters: z.object({ path, content: z.string().describe('The complete new content of the file.') }),
    idempotent: true,
    fsAccess: (args) => [{ path: args.path, access: 'write' }],
    execute: (args, run) =>
      fsCall(async () => {
        const now = await currentContent(fs(), args.path)
        const plan = planOf('fs_write', run, args.path, now, sha256(args.content))
        const written = await change(hooks, plan, () => fs().writeText(args.path, args.content))
        return `${written.created ? 'Created' : 'Overwrote'} ${args.path} (${written.bytes} bytes)`
      }),
  })
}

/** fs_edit: one exact replacement (or all), through the change hooks. */
function editTool(fs: () => FsService, hooks: ChangeHooks) {
  return defineTool({
    name: 'fs_edit',
    description:
      'Replace text in a file. `old` must occur exactly once (copy it exactly, with its whitespace) ' + 'unless replaceAll is true; read the file first.',
    parameters: z.object({
      path,
      old: z.string().min(1, 'old must not be empty').describe('The exact text to replace.'),
      new: z.string().describe('The text to put in its place.'),
      replaceAll: z.boolean().optional().describe('Replace every occurrence instead of exactly one (default false).'),
    }),
    fsAccess: (args) => [
      { path: args.path, access: 'read' },
      { path: args.path, access: 'write' },
    ],
    execute: (args, run) =>
      fsCall(async () => {
        if (args.old === args.new) throw new FsError('FS_INVALID_ARGUMENT', `old and new are the same text, so editing ${args.path} would change nothing`)
        const now = await currentContent(fs(), args.path)
        const plan = planOf('fs_edit', run, args.path, now, sha256(editedText(args.path, now, args.old, args.new, args.replaceAll)))
        const edited = await change(hooks, plan, () => fs().editText(args.path, args.old, args.new, { replaceAll: args.replaceAll }))
        return `Edited ${args.path}: replaced ${edited.replacements} occurrence${edited.replacements === 1 ? '' : 's'}`
      }),
  })
}

/** fs_list: one directory. */
function listTool(fs: () => FsService) {
  return defineTool({
    name: 'fs_list',
    description: 'List a directory: one entry per line, directories end in "/", symbolic links in "@".',
    parameters: z.object({ path: path.describe('Directory path, absolute or relative to the working directory.') }),
    isConcurrencySafe: () => true,
    idempotent: true,
    fsAccess: (args) => [{ path: args.path, access: 'read' }],
    execute: (args) => fsCall(async () => describeEntries(args.path, await fs().list(args.path))),
  })
}

/** The text, plus a bracketed note only when the model did not get the whole file. */
export function describeSlice(path: string, slice: TextSlice): string {
  if (slice.lineCount === 0) {
    if (slice.totalLines === 0) return `[${path} is empty]`
    return `[${path} has ${slice.totalLines} lines; offset ${slice.startLine} is past the end]`
  }
  if (!slice.hasMore && slice.startLine === 1) return slice.text
  const last = slice.startLine + slice.lineCount - 1
  const rest = slice.hasMore ? `more lines follow; call fs_read with offset ${last + 1} to continue` : `end of file (${slice.totalLines} lines)`
  return `${slice.text}${slice.text.endsWith('\n') ? '' : '\n'}\n[lines ${slice.startLine}-${last} of ${path}; ${rest}]`
}

const suffix: Record<FsEntry['type'], string> = { file: '', directory: '/', symlink: '@', other: '' }

export function describeEntries(path: string, entries: FsEntry[]): string {
  if (!entries.length) return `[${path} is an empty directory]`
  return entries.map((entry) => entry.name + suffix[entry.type]).join('\n')
}

import { FsError, type FsEntry, type FsService, type TextSlice } from '@dshkit/fs'
import { defineTool } from '@dshkit/tools'
import { z } from 'zod'

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

export function fsTools(fs: () => FsService) {
  const fsRead = defineTool({
    name: 'fs_read',
    description: 'Read a UTF-8 text file. Without offset/limit it returns the whole file (up to the read limit); '
      + 'for large files pass offset (1-based first line) and limit (number of lines).',
    parameters: z.object({
      path,
      offset: z.number().int().min(1).optional().describe('1-based line number to start at (default 1).'),
      limit: z.number().int().min(1).optional().describe('Most lines to return (default: to the end of the file).'),
    }),
    isConcurrencySafe: () => true,
    idempotent: true,
    fsAccess: (args) => [{ path: args.path, access: 'read' }],
    execute: (args) => fsCall(async () => describeSlice(args.path, await fs().readText(args.path, { offset: args.offset, limit: args.limit }))),
  })

  const fsWrite = defineTool({
    name: 'fs_write',
    description: 'Write a UTF-8 text file, replacing it whole (atomically) or creating it and any missing parent directories.',
    parameters: z.object({ path, content: z.string().describe('The complete new content of the file.') }),
    idempotent: true,
    fsAccess: (args) => [{ path: args.path, access: 'write' }],
    execute: (args) => fsCall(async () => {
      const written = await fs().writeText(args.path, args.content)
      return `${written.created ? 'Created' : 'Overwrote'} ${args.path} (${written.bytes} bytes)`
    }),
  })

  const fsEdit = defineTool({
    name: 'fs_edit',
    description: 'Replace text in a file. `old` must occur exactly once (copy it exactly, with its whitespace) '
      + 'unless replaceAll is true; read the file first.',
    parameters: z.object({
      path,
      old: z.string().min(1, 'old must not be empty').describe('The exact text to replace.'),
      new: z.string().describe('The text to put in its place.'),
      replaceAll: z.boolean().optional().describe('Replace every occurrence instead of exactly one (default false).'),
    }),
    fsAccess: (args) => [{ path: args.path, access: 'read' }, { path: args.path, access: 'write' }],
    execute: (args) => fsCall(async () => {
      if (args.old === args.new) throw new FsError('FS_INVALID_ARGUMENT', `old and new are the same text, so editing ${args.path} would change nothing`)
      const edited = await fs().editText(args.path, args.old, args.new, { replaceAll: args.replaceAll })
      return `Edited ${args.path}: replaced ${edited.replacements} occurrence${edited.replacements === 1 ? '' : 's'}`
    }),
  })

  const fsList = defineTool({
    name: 'fs_list',
    description: 'List a directory: one entry per line, directories end in "/", symbolic links in "@".',
    parameters: z.object({ path: path.describe('Directory path, absolute or relative to the working directory.') }),
    isConcurrencySafe: () => true,
    idempotent: true,
    fsAccess: (args) => [{ path: args.path, access: 'read' }],
    execute: (args) => fsCall(async () => describeEntries(args.path, await fs().list(args.path))),
  })

  return [fsRead, fsWrite, fsEdit, fsList]
}

/** The text, plus a bracketed note only when the model did not get the whole file. */
export function describeSlice(path: string, slice: TextSlice): string {
  if (slice.lineCount === 0) {
    if (slice.totalLines === 0) return `[${path} is empty]`
    return `[${path} has ${slice.totalLines} lines; offset ${slice.startLine} is past the end]`
  }
  if (!slice.hasMore && slice.startLine === 1) return slice.text
  const last = slice.startLine + slice.lineCount - 1
  const rest = slice.hasMore
    ? `more lines follow; call fs_read with offset ${last + 1} to continue`
    : `end of file (${slice.totalLines} lines)`
  return `${slice.text}${slice.text.endsWith('\n') ? '' : '\n'}\n[lines ${slice.startLine}-${last} of ${path}; ${rest}]`
}

const suffix: Record<FsEntry['type'], string> = { file: '', directory: '/', symlink: '@', other: '' }

export function describeEntries(path: string, entries: FsEntry[]): string {
  if (!entries.length) return `[${path} is an empty directory]`
  return entries.map((entry) => entry.name + suffix[entry.type]).join('\n')
}

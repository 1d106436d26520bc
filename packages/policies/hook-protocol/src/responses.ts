import { isAbsolute, resolve } from 'node:path'
import { structuredPatch } from 'diff'
import type { ToolDialect, ToolNameMapping } from './mapping.js'

/** The parts of a finished call a `tool_response` is built from. */
export interface ResponseSource {
  /** Our arguments (the ones that ran). */
  args: unknown
  value: unknown
  /** The model-facing content. */
  content: unknown
  /** A Write/Edit's file before the call: null when there was none, undefined when not known (see originals.ts). */
  original?: string | null
  /** Our tool's name (fs_write or fs_edit decide Codex's apply_patch summary). */
  tool?: string
}

/**
 * `tool_response` as the product gives it for the mapped tool (measured: tests/fixtures of hooks-claude-code). Claude
 * Code: a structured object per built-in tool (Write → `{ type, filePath, content, structuredPatch, originalFile,
 * userModified }`, Bash → `{ stdout, stderr, interrupted, isImage, noOutputExpected }`…); other tools give their value.
 * Codex: see `codexResponse`.
 */
export function toolResponse(dialect: ToolDialect, mapping: ToolNameMapping | undefined, source: ResponseSource, projectDir: string): unknown {
  if (dialect === 'codex') return codexResponse(mapping, source)
  const args = asObject(source.args)
  const abs = (path: unknown) => (typeof path === 'string' && path && !isAbsolute(path) ? resolve(projectDir, path) : path)
  switch (mapping?.shape) {
    case 'write': {
      const created = typeof source.value === 'string' && source.value.startsWith('Created ')
      const original = created ? null : (source.original ?? null)
      return {
        type: created ? 'create' : 'update',
        filePath: abs(args.path),
        content: args.content,
        structuredPatch: patchOf(original, args.content),
        originalFile: original,
        userModified: false,
      }
    }
    case 'edit': {
      const original = source.original ?? null
      return {
        filePath: abs(args.path),
        oldString: args.old,
        newString: args.new,
        originalFile: original,
        structuredPatch: patchOf(original, original === null ? null : edited(original, args)),
        userModified: false,
        replaceAll: args.replaceAll === true,
      }
    }
    case 'read': {
      const content = typeof source.value === 'string' ? source.value : contentText(source.content)
      const numLines = content ? content.split('\n').length : 0
      const startLine = typeof args.offset === 'number' ? args.offset : 1
      // A slice's total is not in its result: the lines up to its end are the least there are.
      return { type: 'text', file: { filePath: abs(args.path), content, numLines, startLine, totalLines: startLine - 1 + numLines } }
    }
    case 'glob': {
      const dir = String(abs(args.path) ?? projectDir)
      const filenames = listedNames(source.value).map((name) => resolve(dir, name))
      return { filenames, numFiles: filenames.length, truncated: false, durationMs: 0 }
    }
    case 'bash':
      return bashResponse(source.value)
    default:
      return source.value ?? null
  }
}

/**
 * Codex's `tool_response`: for Bash the command's raw output as one string (no exit code or timing header; Codex
 * merges the streams, here stdout then stderr); for apply_patch its summary `Success. Updated the following files:\nA <path>\n`
 * (`M` for an edit); other mapped tools the output text the model sees; unmapped tools their value.
 */
function codexResponse(mapping: ToolNameMapping | undefined, source: ResponseSource): unknown {
  if (!mapping) return source.value ?? null
  const v = asObject(source.value)
  const output = v.stdout !== undefined || v.stderr !== undefined
  // A configured mapping named Bash (no shape) is still Codex's shell tool to the scripts.
  if ((mapping.shape === 'bash' || mapping.name === 'Bash') && output) return streamText(v.stdout) + streamText(v.stderr)
  if (mapping.shape === 'apply_patch') {
    const path = asObject(source.args).path
    return `Success. Updated the following files:\n${source.tool === 'fs_edit' ? 'M' : 'A'} ${String(path)}\n`
  }
  return contentText(source.content)
}

/**
 * What a shell result says when Claude Code would call the run a failure (non-zero exit, killed, timed out);
 * `interrupted` is its `is_interrupt`: true only when the call was aborted (a timeout is not an interrupt).
 */
export function bashFailure(value: unknown, timeoutMs?: unknown): { error: string; interrupted: boolean } | undefined {
  const v = asObject(value)
  const interrupted = v.timedOut === true || v.aborted === true
  if (v.background === true || (typeof v.jobId === 'string' && v.exitCode === undefined)) return undefined
  if (v.exitCode === 0 && !v.signal && !interrupted) return undefined
  if (v.exitCode === undefined && v.signal === undefined && !interrupted) return undefined
  const how = interrupted
    ? v.timedOut
      ? // As measured: Claude Code reports its SIGTERM's exit code, then the deadline.
        `Exit code 143\nCommand timed out${typeof timeoutMs === 'number' ? ` after ${timeoutMs / 1000}s` : ''}`
      : 'Command was interrupted'
    : v.signal
      ? `Command was killed by ${String(v.signal)}`
      : `Exit code ${String(v.exitCode)}`
  const output = mergedOutput(v)
  return { error: output ? `${how}\n${output}` : how, interrupted: v.aborted === true }
}

/**
 * Claude Code's Bash result: `{ stdout, stderr, interrupted, isImage, noOutputExpected }`, plus `backgroundTaskId` for a
 * background run. Claude Code runs commands with stderr into stdout, trailing newlines trimmed: stderr is always empty.
 */
function bashResponse(value: unknown) {
  const v = asObject(value)
  const response: Record<string, unknown> = {
    stdout: mergedOutput(v),
    stderr: '',
    interrupted: v.timedOut === true || v.aborted === true,
    isImage: false,
    noOutputExpected: false,
  }
  const task = v.jobId ?? v.backgroundTaskId
  if (typeof task === 'string') response.backgroundTaskId = task
  return response
}

/** stdout then stderr (their interleaving is not kept apart from the two streams), each without trailing newlines. */
function mergedOutput(v: Record<string, any>): string {
  return [streamText(v.stdout), streamText(v.stderr)]
    .map((text) => text.replace(/\n+$/, ''))
    .filter(Boolean)
    .join('\n')
}

/** jsdiff's hunks (3 lines of context), as Claude Code sends them; none for a new file or an unknown original. */
function patchOf(original: string | null, updated: unknown) {
  if (original === null || typeof updated !== 'string') return []
  return structuredPatch('', '', original, updated, '', '', { context: 3 }).hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({
    oldStart,
    oldLines,
    newStart,
    newLines,
    lines,
  }))
}

/** The file after an fs_edit: `old` occurs once (fs_edit refuses otherwise) unless replaceAll. */
function edited(original: string, args: Record<string, any>): string | null {
  if (typeof args.old !== 'string' || typeof args.new !== 'string') return null
  return args.replaceAll === true ? original.split(args.old).join(args.new) : original.replace(args.old, () => args.new)
}

/** A shell stream is text, or `{ text, droppedBytes }` as @dshkit/shell keeps it. */
function streamText(stream: unknown): string {
  if (typeof stream === 'string') return stream
  const text = asObject(stream).text
  return typeof text === 'string' ? text : ''
}

/** fs_list's lines (`name`, `dir/`, `link@`) without the markers; bracketed notes are not names. */
function listedNames(value: unknown): string[] {
  if (typeof value !== 'string') return []
  return value
    .split('\n')
    .filter((line) => line && !line.startsWith('['))
    .map((line) => line.replace(/[/@]$/, ''))
}

export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return ''
  return content
    .map((block) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter(Boolean)
    .join('\n')
}

function asObject(value: unknown): Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, any>) : {}
}

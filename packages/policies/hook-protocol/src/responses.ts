import { isAbsolute, resolve } from 'node:path'
import type { ToolDialect, ToolNameMapping } from './mapping.js'

/** The parts of a finished call a `tool_response` is built from. */
export interface ResponseSource {
  /** Our arguments (the ones that ran). */
  args: unknown
  value: unknown
  /** The model-facing content. */
  content: unknown
  /** Our tool's name (fs_write or fs_edit decide Codex's apply_patch summary). */
  tool?: string
}

/**
 * `tool_response` as the product gives it for the mapped tool. Claude Code: a structured object per
 * built-in tool (Write → `{ type, filePath, content, success }`, Bash → `{ stdout, stderr, interrupted, isImage }`…);
 * other tools give their value. Codex: see `codexResponse`.
 */
export function toolResponse(dialect: ToolDialect, mapping: ToolNameMapping | undefined, source: ResponseSource, projectDir: string): unknown {
  if (dialect === 'codex') return codexResponse(mapping, source)
  const args = asObject(source.args)
  const abs = (path: unknown) => (typeof path === 'string' && path && !isAbsolute(path) ? resolve(projectDir, path) : path)
  switch (mapping?.shape) {
    case 'write':
      return {
        type: typeof source.value === 'string' && source.value.startsWith('Created ') ? 'create' : 'update',
        filePath: abs(args.path),
        content: args.content,
        success: true,
      }
    case 'edit':
      return { filePath: abs(args.path), oldString: args.old, newString: args.new, replaceAll: args.replaceAll === true, userModified: false, success: true }
    case 'read': {
      const content = typeof source.value === 'string' ? source.value : contentText(source.content)
      const numLines = content ? content.split('\n').length : 0
      return { type: 'text', file: { filePath: abs(args.path), content, numLines, startLine: typeof args.offset === 'number' ? args.offset : 1 } }
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

/** What a shell result says when Claude Code would call the run a failure (non-zero exit, killed, timed out). */
export function bashFailure(value: unknown): { error: string; interrupted: boolean } | undefined {
  const v = asObject(value)
  const interrupted = v.timedOut === true || v.aborted === true
  if (v.background === true || (typeof v.jobId === 'string' && v.exitCode === undefined)) return undefined
  if (v.exitCode === 0 && !v.signal && !interrupted) return undefined
  if (v.exitCode === undefined && v.signal === undefined && !interrupted) return undefined
  const how = interrupted
    ? v.timedOut
      ? 'Command timed out'
      : 'Command was interrupted'
    : v.signal
      ? `Command was killed by ${String(v.signal)}`
      : `Exit code ${String(v.exitCode)}`
  const output = [streamText(v.stdout), streamText(v.stderr)].filter(Boolean).join('\n')
  return { error: output ? `${how}\n${output}` : how, interrupted }
}

/** Claude Code's Bash result: `{ stdout, stderr, interrupted, isImage }`, plus `backgroundTaskId` for a background run. */
function bashResponse(value: unknown) {
  const v = asObject(value)
  const response: Record<string, unknown> = {
    stdout: streamText(v.stdout),
    stderr: streamText(v.stderr),
    interrupted: v.timedOut === true || v.aborted === true,
    isImage: false,
  }
  const task = v.jobId ?? v.backgroundTaskId
  if (typeof task === 'string') response.backgroundTaskId = task
  return response
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

import { isAbsolute, resolve } from 'node:path'
import { applyPatchText, patchArguments } from './patch.js'

/** Which of Claude Code's / Codex's built-in tools a mapping stands for: decides `tool_response` and special inputs. */
export type ToolShape = 'read' | 'write' | 'edit' | 'glob' | 'bash' | 'apply_patch'

/** How one of our tools appears to hook scripts written for another harness. */
export interface ToolNameMapping {
  /** The name hook matchers and `tool_name` see, e.g. `Write`. */
  name: string
  /** Their argument name → ours, e.g. `{ file_path: 'path' }`. Arguments not listed keep their names. */
  arguments?: Record<string, string>
  /** Their argument name → the value hooks see when the call leaves it out (Claude Code's Edit shows `replace_all: false`). */
  defaults?: Record<string, unknown>
  /** Their argument names whose relative path values are made absolute against the project dir. */
  paths?: string[]
  /** Only the listed arguments reach the hook (Codex's Bash input is `{ command }` alone). */
  mappedOnly?: boolean
  /** Built-in mappings only: the product tool it imitates (see responses.ts). */
  shape?: ToolShape
}

/** Our tool name → mapping; `false` removes a default so the tool is passed under its own name. */
export type ToolNameMap = Record<string, ToolNameMapping | false>

export type ToolDialect = 'claude-code' | 'codex'

/** Claude Code's names and argument names for our tools. */
export const DEFAULT_TOOL_NAMES: Readonly<Record<string, ToolNameMapping>> = Object.freeze({
  fs_read: { name: 'Read', arguments: { file_path: 'path', offset: 'offset', limit: 'limit' }, paths: ['file_path'], shape: 'read' },
  fs_write: { name: 'Write', arguments: { file_path: 'path', content: 'content' }, paths: ['file_path'], shape: 'write' },
  fs_edit: {
    name: 'Edit',
    arguments: { file_path: 'path', old_string: 'old', new_string: 'new', replace_all: 'replaceAll' },
    defaults: { replace_all: false },
    paths: ['file_path'],
    shape: 'edit',
  },
  // Claude Code has no directory lister any more; Glob is the tool hooks guarding listings match.
  fs_list: { name: 'Glob', arguments: { path: 'path' }, paths: ['path'], shape: 'glob' },
  shell: {
    name: 'Bash',
    arguments: { command: 'command', description: 'description', timeout: 'timeoutMs', run_in_background: 'background' },
    shape: 'bash',
  },
})

/** Codex's: shell commands are `Bash` with `{ command }`, file edits are `apply_patch` with the patch text. */
export const CODEX_TOOL_NAMES: Readonly<Record<string, ToolNameMapping>> = Object.freeze({
  fs_write: { name: 'apply_patch', shape: 'apply_patch' },
  fs_edit: { name: 'apply_patch', shape: 'apply_patch' },
  shell: { name: 'Bash', arguments: { command: 'command' }, mappedOnly: true, shape: 'bash' },
})

/** The dialect's defaults with the configured entries laid over them. */
export function resolveToolNames(overrides: ToolNameMap = {}, dialect: ToolDialect = 'claude-code'): Map<string, ToolNameMapping> {
  const defaults = dialect === 'codex' ? CODEX_TOOL_NAMES : DEFAULT_TOOL_NAMES
  const map = new Map<string, ToolNameMapping>(Object.entries(defaults))
  for (const [tool, mapping] of Object.entries(overrides)) {
    if (mapping === false) map.delete(tool)
    else map.set(tool, mapping)
  }
  return map
}

export interface MappedCall {
  toolName: string
  toolInput: unknown
}

/** Renames the tool and its arguments as the hook scripts expect them. */
export function mapToolCall(name: string, args: unknown, mapping: ToolNameMapping | undefined, projectDir: string): MappedCall {
  if (!mapping) return { toolName: name, toolInput: args }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { toolName: mapping.name, toolInput: args }
  const ours = args as Record<string, unknown>
  if (mapping.shape === 'apply_patch') return { toolName: mapping.name, toolInput: { command: applyPatchText(name, ours) } }
  const input: Record<string, unknown> = {}
  const renamed = new Set<string>()
  // Own keys only, set as own data: `__proto__` or `constructor` in the arguments must reach the
  // hook as they are (JSON.stringify of the arguments shows the same), not be dropped or inherited.
  for (const [theirs, key] of Object.entries(mapping.arguments ?? {})) {
    renamed.add(key)
    if (Object.hasOwn(ours, key) && ours[key] !== undefined) setOwn(input, theirs, ours[key])
  }
  if (!mapping.mappedOnly) {
    for (const [key, value] of Object.entries(ours)) {
      if (!renamed.has(key) && !Object.hasOwn(input, key)) setOwn(input, key, value)
    }
  }
  for (const [key, value] of Object.entries(mapping.defaults ?? {})) if (!Object.hasOwn(input, key)) setOwn(input, key, value)
  for (const key of mapping.paths ?? []) {
    const value = Object.hasOwn(input, key) ? input[key] : undefined
    if (typeof value === 'string' && value && !isAbsolute(value)) setOwn(input, key, resolve(projectDir, value))
  }
  return { toolName: mapping.name, toolInput: input }
}

/**
 * A hook's `updatedInput` (in its names) as our arguments: it replaces everything the hook was shown;
 * arguments it was not shown (Codex's Bash sees only `command`) are kept. An apply_patch rewrite (our fs_write /
 * fs_edit, `tool`) is read back from the patch text. Throws when it cannot be mapped.
 */
export function unmapToolInput(updated: Record<string, unknown>, args: unknown, mapping: ToolNameMapping | undefined, tool = ''): Record<string, unknown> {
  if (nestedDeeperThan(updated, MAX_INPUT_DEPTH)) throw new Error(`updatedInput is nested more than ${MAX_INPUT_DEPTH} levels deep`)
  if (!mapping) return { ...updated }
  const ours = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  if (mapping.shape === 'apply_patch') {
    const extra = Object.keys(updated).filter((key) => key !== 'command')
    if (extra.length) throw new Error(`updatedInput for apply_patch has only "command" (the patch); it also has ${extra.map((k) => `"${k}"`).join(', ')}`)
    // The patch the hook was shown, given back: no change (read back, a last line without newline would gain one).
    if (updated.command === applyPatchText(tool, ours)) return { ...ours }
    try {
      // Arguments a patch cannot say (fs_edit's replaceAll) stay as they were.
      return { ...ours, ...patchArguments(tool, updated.command) }
    } catch (error) {
      throw new Error(`updatedInput for apply_patch cannot be applied: ${(error as Error).message}`)
    }
  }
  const result: Record<string, unknown> = {}
  const theirsOf = new Map(Object.entries(mapping.arguments ?? {}).map(([theirs, key]) => [key, theirs]))
  if (mapping.mappedOnly) {
    // Keep what the hook never saw.
    for (const [key, value] of Object.entries(ours)) if (!theirsOf.has(key)) setOwn(result, key, value)
  }
  const oursOf = new Map(Object.entries(mapping.arguments ?? {}))
  for (const [key, value] of Object.entries(updated)) {
    const target = oursOf.get(key) ?? key
    if (mapping.mappedOnly && !oursOf.has(key))
      throw new Error(`updatedInput has "${key}", which ${mapping.name} hooks are not shown here; only ${[...oursOf.keys()].join(', ')} may change`)
    setOwn(result, target, value)
  }
  // A default the hook was shown and sent back unchanged is not an argument the call had.
  for (const [theirs, value] of Object.entries(mapping.defaults ?? {})) {
    const key = oursOf.get(theirs) ?? theirs
    if (!Object.hasOwn(ours, key) && Object.hasOwn(result, key) && result[key] === value) delete result[key]
  }
  return result
}

/** Tool arguments are never this deep; a deeper rewrite would only exhaust the stack of whoever copies it. */
const MAX_INPUT_DEPTH = 256

/** Iterative, so the check itself cannot overflow. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    if (depth >= limit) return true
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return false
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

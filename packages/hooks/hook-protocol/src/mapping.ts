import { isAbsolute, resolve } from 'node:path'

/** How one of our tools appears to hook scripts written for another harness. */
export interface ToolNameMapping {
  /** The name hook matchers and `tool_name` see, e.g. `Write`. */
  name: string
  /** Their argument name → ours, e.g. `{ file_path: 'path' }`. Arguments not listed keep their names. */
  arguments?: Record<string, string>
  /** Their argument names whose relative path values are made absolute against the project dir. */
  paths?: string[]
}

/** Our tool name → mapping; `false` removes a default so the tool is passed under its own name. */
export type ToolNameMap = Record<string, ToolNameMapping | false>

export const DEFAULT_TOOL_NAMES: Readonly<Record<string, ToolNameMapping>> = Object.freeze({
  fs_read: { name: 'Read', arguments: { file_path: 'path', offset: 'offset', limit: 'limit' }, paths: ['file_path'] },
  fs_write: { name: 'Write', arguments: { file_path: 'path', content: 'content' }, paths: ['file_path'] },
  fs_edit: {
    name: 'Edit',
    arguments: { file_path: 'path', old_string: 'old', new_string: 'new', replace_all: 'replaceAll' },
    paths: ['file_path'],
  },
})

/** The defaults with the configured entries laid over them. */
export function resolveToolNames(overrides: ToolNameMap = {}): Map<string, ToolNameMapping> {
  const map = new Map<string, ToolNameMapping>(Object.entries(DEFAULT_TOOL_NAMES))
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
  const input: Record<string, unknown> = {}
  const renamed = new Set<string>()
  // Own keys only, set as own data: `__proto__` or `constructor` in the arguments must reach the
  // hook as they are (JSON.stringify of the arguments shows the same), not be dropped or inherited.
  for (const [theirs, key] of Object.entries(mapping.arguments ?? {})) {
    renamed.add(key)
    if (Object.hasOwn(ours, key) && ours[key] !== undefined) setOwn(input, theirs, ours[key])
  }
  for (const [key, value] of Object.entries(ours)) {
    if (!renamed.has(key) && !Object.hasOwn(input, key)) setOwn(input, key, value)
  }
  for (const key of mapping.paths ?? []) {
    const value = Object.hasOwn(input, key) ? input[key] : undefined
    if (typeof value === 'string' && value && !isAbsolute(value)) setOwn(input, key, resolve(projectDir, value))
  }
  return { toolName: mapping.name, toolInput: input }
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineTool } from '@dshkit/tools'
import { boot, tempDir } from '@dshkit/testing'
import { z } from 'zod'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
export const hook = (name: string, ...args: string[]) => [join(fixtures, name), ...args].join(' ')

export type Group = { matcher?: string; hooks: { type: 'command'; command: string; timeout?: number }[] }
export type Hooks = { PreToolUse?: Group[]; PostToolUse?: Group[] }

/** A group of command hooks, in settings-file shape. */
export function group(matcher: string, ...commands: (string | { command: string; timeout: number })[]): Group {
  return { matcher, hooks: commands.map((c) => (typeof c === 'string' ? { type: 'command', command: c } : { type: 'command', ...c })) }
}

/**
 * A fresh context with the tools pipeline, three file tools that really touch a temp project
 * dir (named like tool-fs's), an `echo` tool, and the plugin reading `.claude/settings.json`.
 */
export async function setup(hooks: Hooks, config: Partial<ConfigInput> = {}) {
  const projectDir = config.projectDir ?? (await tempProject())
  await mkdir(join(projectDir, '.claude'), { recursive: true })
  await writeFile(join(projectDir, '.claude/settings.json'), JSON.stringify({ hooks }))
  const at = (path: string) => resolve(projectDir, path)
  const tools = [
    defineTool({
      name: 'fs_write',
      description: 'write a file',
      parameters: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        await mkdir(dirname(at(path)), { recursive: true })
        await writeFile(at(path), content)
        return { written: path, bytes: content.length }
      },
    }),
    defineTool({
      name: 'fs_read',
      description: 'read a file',
      parameters: z.object({ path: z.string() }),
      execute: ({ path }) => readFile(at(path), 'utf8'),
    }),
    defineTool({
      name: 'fs_edit',
      description: 'edit a file',
      parameters: z.object({ path: z.string(), old: z.string(), new: z.string(), replaceAll: z.boolean().optional() }),
      execute: () => 'edited',
    }),
    defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text }),
  ]
  const booted = await boot({ tools })
  const fiber = await booted.plug(HooksClaudeCode, { configPath: '.claude/settings.json', projectDir, ...config })
  const call = (name: string, args: unknown, signal?: AbortSignal) => booted.call(name, args, { signal })
  return { ctx: booted.ctx, fiber, projectDir, call, logs: booted.logs, warnings: () => booted.logs.warnings() }
}

/** A fresh project dir; `cleanup()` removes it. */
export function tempProject(): Promise<string> {
  return tempDir('hooks-claude-code-')
}

export async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  )
}

/** Writes `content` as JSON (or text) at `path`, creating its directory. */
export async function put(path: string, content: unknown): Promise<string> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

/** A hook command that appends `<label> <tool_name>` to `log` (and the value of $VAR when given). */
export function recorder(log: string, label: string, variable?: string): string {
  const extra = variable ? ` "$${variable}"` : ''
  return `echo "${label} $(sed -n 's/.*"tool_name":"\\([^"]*\\)".*/\\1/p')"${extra} >> '${log}'`
}

export async function lines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text.split('\n').filter(Boolean)
}

/**
 * The tools a Claude Code setup guards: `fs_write` / `fs_read` touching a temp project, and a
 * `shell` tool shaped like @dshkit/tool-shell's ({ command, cwd?, timeoutMs?, description? }) that
 * only records what it was asked to run.
 */
export async function bootWith(config: Partial<ConfigInput>, projectDir?: string) {
  const dir = projectDir ?? (await tempDir('hooks-claude-code-sources-'))
  const at = (path: string) => resolve(dir, path)
  const ran: string[] = []
  const tools = [
    defineTool({
      name: 'fs_write',
      description: 'write a file',
      parameters: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        await mkdir(dirname(at(path)), { recursive: true })
        await writeFile(at(path), content)
        return { written: path }
      },
    }),
    defineTool({ name: 'fs_read', description: 'read a file', parameters: z.object({ path: z.string() }), execute: ({ path }) => readFile(at(path), 'utf8') }),
    defineTool({
      name: 'shell',
      description: 'run a command (records it)',
      parameters: z.object({ command: z.string(), cwd: z.string().optional(), timeoutMs: z.number().optional(), description: z.string().optional() }),
      execute: ({ command }) => {
        ran.push(command)
        return { stdout: '', stderr: '', exitCode: 0 }
      },
    }),
  ]
  const booted = await boot({ tools })
  await booted.plug(HooksClaudeCode, { projectDir: dir, sessionId: 's', ...config })
  return { ...booted, projectDir: dir, ran, at, join: (...parts: string[]) => join(dir, ...parts) }
}

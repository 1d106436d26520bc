import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'
import Tools, { defineTool } from '@dshkit/tools'
import { Context } from 'cordis'
import { z } from 'zod'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
export const hook = (name: string, ...args: string[]) => [join(fixtures, name), ...args].join(' ')

export type Group = { matcher?: string; hooks: { type: 'command'; command: string; timeout?: number }[] }
export type Hooks = { PreToolUse?: Group[]; PostToolUse?: Group[] }

/** A group of command hooks, in settings-file shape. */
export function group(matcher: string, ...commands: (string | { command: string; timeout: number })[]): Group {
  return { matcher, hooks: commands.map((c) => typeof c === 'string' ? { type: 'command', command: c } : { type: 'command', ...c }) }
}

/**
 * A fresh context with the tools pipeline, three file tools that really touch a temp project
 * dir (named like tool-fs's), an `echo` tool, and the plugin reading `.claude/settings.json`.
 */
export async function setup(hooks: Hooks, config: Partial<ConfigInput> = {}) {
  const projectDir = config.projectDir ?? await tempProject()
  await mkdir(join(projectDir, '.claude'), { recursive: true })
  await writeFile(join(projectDir, '.claude/settings.json'), JSON.stringify({ hooks }))
  const ctx = new Context()
  const logs: { type: string; text: string }[] = []
  ctx.logger.exporter({ export: (m) => void logs.push({ type: m.type, text: format(...m.args) }) })
  await ctx.plugin(Tools)
  const at = (path: string) => resolve(projectDir, path)
  await ctx.plugin({
    name: 'test-tools',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(defineTool({
        name: 'fs_write',
        description: 'write a file',
        parameters: z.object({ path: z.string(), content: z.string() }),
        execute: async ({ path, content }) => {
          await mkdir(dirname(at(path)), { recursive: true })
          await writeFile(at(path), content)
          return { written: path, bytes: content.length }
        },
      }))
      ctx.tools.register(defineTool({
        name: 'fs_read',
        description: 'read a file',
        parameters: z.object({ path: z.string() }),
        execute: ({ path }) => readFile(at(path), 'utf8'),
      }))
      ctx.tools.register(defineTool({
        name: 'fs_edit',
        description: 'edit a file',
        parameters: z.object({ path: z.string(), old: z.string(), new: z.string(), replaceAll: z.boolean().optional() }),
        execute: () => 'edited',
      }))
      ctx.tools.register(defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text }))
    },
  })
  const fiber = ctx.plugin(HooksClaudeCode, { configPath: '.claude/settings.json', projectDir, ...config })
  await fiber
  let calls = 0
  const call = (name: string, args: unknown, signal?: AbortSignal) => ctx.tools.execute({ callId: `call-${++calls}`, name, arguments: args, signal })
  return { ctx, fiber, projectDir, call, logs, warnings: () => logs.filter((l) => l.type === 'warn').map((l) => l.text) }
}

export function tempProject(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hooks-claude-code-'))
}

export async function exists(path: string): Promise<boolean> {
  return readFile(path).then(() => true, () => false)
}

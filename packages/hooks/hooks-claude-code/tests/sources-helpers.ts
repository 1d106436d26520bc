import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineTool } from '@dshkit/tools'
import { boot, tempDir } from '@dshkit/testing'
import { z } from 'zod'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))

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
  const dir = projectDir ?? await tempDir('hooks-claude-code-sources-')
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

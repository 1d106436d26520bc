import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import LocalFs from '@dshkit/fs-local'
import ShellLocal from '@dshkit/shell-local'
import ToolFs from '@dshkit/tool-fs'
import ToolShell from '@dshkit/tool-shell'
import { boot, tempDir, type PluginEntry } from '@dshkit/testing'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'
import { fixtures } from './setup.js'

export const py = (name: string, ...args: string[]) =>
  ['python3', JSON.stringify(join(fixtures, name)), ...args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`)].join(' ')

type Handler = { type: 'command'; command: string; timeout?: number }
export const on = (matcher: string, ...commands: (string | Handler)[]) => ({
  matcher,
  hooks: commands.map((c) => (typeof c === 'string' ? { type: 'command' as const, command: c } : c)),
})

/**
 * The real tools a Claude Code setup guards (tool-fs on fs-local, tool-shell on shell-local) in a temp
 * project whose `.claude/settings.json` holds `hooks`; `before` plugins (a session store, approval, a policy…) go after the
 * tools, which listen to nothing, and before the bridge: a permission policy checks its rules against the tools at start.
 */
export async function project(hooks: Record<string, unknown>, config: Partial<ConfigInput> = {}, before: PluginEntry[] = []) {
  const dir = await tempDir('hooks-claude-code-payload-')
  await mkdir(join(dir, '.claude'), { recursive: true })
  await writeFile(join(dir, '.claude/settings.json'), JSON.stringify({ hooks }))
  const booted = await boot({ plugins: [[LocalFs, { cwd: dir }], ToolFs, [ShellLocal, { cwd: dir }], ToolShell, ...before] })
  await booted.plug(HooksClaudeCode, { projectDir: dir, sessionId: 'session-1', sources: { project: true }, ...config })
  const seen = async (event: string, tool: string) => JSON.parse(await readFile(join(dir, `${event}-${tool}.json`), 'utf8'))
  return { ...booted, dir, seen }
}

export async function jsonLines(file: string): Promise<any[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

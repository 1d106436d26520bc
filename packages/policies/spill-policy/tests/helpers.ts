import { execFile } from 'node:child_process'
import { chmod, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Context } from 'cordis'
import type { ToolExecutionResult } from '@dshkit/tools'
import { boot, textOutputTool, type PluginEntry } from '@dshkit/testing'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy, { type ConfigInput } from '../src/index.js'

export { tempDir, removeDir, textOf, valueOf } from '@dshkit/testing'

const run = promisify(execFile)

/** Unwritable even for root: chmod for ordinary users, the immutable flag for root. */
export async function makeReadOnly(dir: string): Promise<boolean> {
  await chmod(dir, 0o555)
  const probe = join(dir, '.probe')
  const writable = () =>
    writeFile(probe, 'x')
      .then(() => rm(probe))
      .then(
        () => true,
        () => false,
      )
  if (!(await writable())) return true
  await run('chattr', ['+i', dir]).catch(() => {})
  return !(await writable())
}

export function mixedText(bytes: number, seed = 0): string {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = `${i + seed}: ascii, ünïcödé, 漢字かな, emoji 🎉🧪\n`
    lines.push(line)
    size += Buffer.byteLength(line)
  }
  return lines.join('')
}

export const bytes = (text: string) => Buffer.byteLength(text)

export interface Setup {
  store?: 'local' | 'none' | ((ctx: Context) => void)
  dir?: string
  policy?: ConfigInput
}

/** Tools + a spill store + spill-policy + a `big` tool that returns (or throws) a given text; `cleanup()` disposes it. */
export async function setup({ store = 'local', dir, policy = {} }: Setup = {}) {
  const outputs = textOutputTool()
  const stores: PluginEntry[] =
    store === 'local' ? [[SpillLocal, dir ? { dir } : {}]] : typeof store === 'function' ? [{ name: 'test-store', apply: store }] : []
  const booted = await boot({ tools: [outputs.tool], plugins: stores })
  const fiber = await booted.plug(SpillPolicy, policy)
  const call = (name: string, args: unknown) => booted.call(name, args)
  const big = (text: string, fail = false) => call('big', outputs.argsFor(text, fail))
  return { ctx: booted.ctx, fiber, call, big }
}

/** Reads a whole spill back through spill_read pages. */
export async function readAll(call: (name: string, args: unknown) => Promise<ToolExecutionResult>, id: string, limit?: number) {
  const pages: string[] = []
  let offset: number | null = 0
  let calls = 0
  while (offset !== null) {
    const result = await call('spill_read', limit ? { id, offset, limit } : { id, offset })
    if (result.isError) throw new Error(result.error.message)
    const value = result.value as { text: string; next: number | null; offset: number }
    if (value.offset !== offset) throw new Error(`page started at ${value.offset}, asked ${offset}`)
    pages.push(value.text)
    offset = value.next
    calls++
  }
  return { text: pages.join(''), calls }
}

import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Context } from 'cordis'
import Tools, { defineTool, type ToolExecutionResult } from '@dshkit/tools'
import { z } from 'zod'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy from '../src/index.js'

const run = promisify(execFile)

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'spill-policy-test-'))
}

export async function removeDir(dir: string) {
  await run('chattr', ['-R', '-i', dir]).catch(() => {})
  await rm(dir, { recursive: true, force: true })
}

/** Unwritable even for root: chmod for ordinary users, the immutable flag for root. */
export async function makeReadOnly(dir: string): Promise<boolean> {
  await chmod(dir, 0o555)
  const probe = join(dir, '.probe')
  const writable = () => writeFile(probe, 'x').then(() => rm(probe)).then(() => true, () => false)
  if (!await writable()) return true
  await run('chattr', ['+i', dir]).catch(() => {})
  return !await writable()
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

export function textOf(result: ToolExecutionResult): string {
  return result.content.flatMap((b) => b.type === 'text' ? [b.text] : []).join('\n')
}

export interface Setup {
  store?: 'local' | 'none' | ((ctx: Context) => void)
  dir?: string
  policy?: Record<string, unknown>
}

/** Tools + a spill store + spill-policy + a `big` tool that returns (or throws) a given text. */
export async function setup({ store = 'local', dir, policy = {} }: Setup = {}) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  if (store === 'local') await ctx.plugin(SpillLocal, dir ? { dir } : {})
  else if (typeof store === 'function') await ctx.plugin({ name: 'test-store', apply: store })
  const outputs = new Map<string, string>()
  await ctx.plugin({
    name: 'big-tool',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(defineTool({
        name: 'big',
        description: 'returns a stored text',
        parameters: z.object({ key: z.string(), fail: z.boolean().optional() }),
        execute({ key, fail }) {
          const text = outputs.get(key) ?? ''
          if (fail) throw new Error(text)
          return text
        },
      }))
    },
  })
  const fiber = await ctx.plugin(SpillPolicy, policy)
  let n = 0
  const call = (name: string, args: unknown) => ctx.tools.execute({ callId: `call-${++n}`, name, arguments: args })
  const big = (text: string, fail = false) => {
    const key = `k${++n}`
    outputs.set(key, text)
    return call('big', { key, fail })
  }
  return { ctx, fiber, call, big }
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

/** The value of a result that must have succeeded (a failure fails the test with its message). */
export function valueOf(result: ToolExecutionResult): any {
  if (result.isError) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

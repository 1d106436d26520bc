import { expect } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { boot, exited, hangMidCallScript, tempDir as kitTempDir } from '@dshkit/testing'
import type { SessionEvent } from '@dshkit/session'
import SessionStoreJsonl from '../src/index.js'

// Removed by the kit's cleanup(): every spec file that uses it runs afterEach(cleanup).
export { exited } from '@dshkit/testing'

export const tempDir = () => kitTempDir('dshkit-jsonl-')

export const at = '2025-01-01T00:00:00.000Z'
export const call = (callId: string, name = 'fs_write'): SessionEvent => ({ type: 'tool/call', callId, name, arguments: { path: 'a.txt' }, time: at })
export const result = (callId: string): SessionEvent => ({ type: 'tool/result', callId, isError: false, content: [{ type: 'text', text: 'ok' }], time: at })
export const line = (event: SessionEvent) => `${JSON.stringify(event)}\n`

/** A booted Context with the JSONL session on `path`, and the warnings logged while it loaded. */
export async function open(path: string) {
  const booted = await boot()
  const fiber = await booted.plug(SessionStoreJsonl, { path })
  return { ctx: booted.ctx, fiber, warnings: booted.logs.warnings(), session: booted.ctx.session }
}

/** Every line of the file parsed as JSON (throws if any line is not): "the file is valid JSONL". */
export async function jsonlLines(path: string): Promise<any[]> {
  const text = await readFile(path, 'utf8')
  expect(text === '' || text.endsWith('\n')).toBe(true)
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

const here = fileURLToPath(new URL('.', import.meta.url))
const require = createRequire(import.meta.url)
const built = (relative: string) => {
  const path = join(here, relative)
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm build\` before these tests (the child process imports built packages)`)
  return pathToFileURL(path).href
}

/** Writes the child script: boots cordis + tools + JSONL session + agent-loop as a real separate process. */
export async function childScript(dir: string) {
  const script = join(dir, 'child.mjs')
  await writeFile(
    script,
    `
import { Context } from ${JSON.stringify(pathToFileURL(require.resolve('cordis')).href)}
import { z } from ${JSON.stringify(pathToFileURL(require.resolve('zod')).href)}
import Tools from ${JSON.stringify(built('../../../core/tools/lib/index.js'))}
import AgentLoop from ${JSON.stringify(built('../../../core/agent-loop/lib/index.js'))}
import SessionStoreJsonl from ${JSON.stringify(built('../lib/index.js'))}

const [log, mode] = process.argv.slice(2)
const ctx = new Context()
await ctx.plugin(Tools)
await ctx.plugin(SessionStoreJsonl, { path: log })
if (mode === 'hold') {
  process.stdout.write('READY\\n')
  setInterval(() => {}, 1000)
} else if (mode === 'exit') {
  await ctx.session.append({ type: 'tool/call', callId: 'c1', name: 'x', arguments: null })
  process.exit(0) // without disposing anything
} else {
  // One quick call, then one that hangs after printing READY: the test kills the process mid-call.
  ${hangMidCallScript}
}
`,
  )
  return script
}

/** Spawns the child and resolves once it printed READY; rejects with its stderr if it exits first. */
export function spawnReady(script: string, ...args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`child never got ready: ${stderr}`))
    }, 15_000)
    child.stderr!.on('data', (chunk) => {
      stderr += chunk
    })
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      if (stdout.includes('READY\n')) {
        clearTimeout(timer)
        resolve(child)
      }
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`child exited (${code ?? signal}) before it was ready: ${stderr}`))
    })
  })
}

/** The pid of a process that has exited, for a stale lock. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await exited(child)
  return child.pid!
}

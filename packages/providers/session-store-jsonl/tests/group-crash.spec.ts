import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { cleanup, exited } from '@dshkit/testing'
import { readSessionLog } from '../src/index.js'
import { open, tempDir } from './helpers.js'

afterEach(cleanup)

const here = fileURLToPath(new URL('.', import.meta.url))
const require = createRequire(import.meta.url)
const built = (relative: string) => {
  const path = join(here, relative)
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm build\` before these tests (the child process imports built packages)`)
  return pathToFileURL(path).href
}

/** A writer that appends waves of 16 concurrent events forever and prints each callId once its append resolved (durable). */
async function writerScript(dir: string) {
  const script = join(dir, 'writer.mjs')
  await writeFile(
    script,
    `
import { Context } from ${JSON.stringify(pathToFileURL(require.resolve('cordis')).href)}
import SessionStoreJsonl from ${JSON.stringify(built('../lib/index.js'))}
const ctx = new Context()
await ctx.plugin(SessionStoreJsonl, { path: process.argv[2] })
const padding = 'p'.repeat(3000) // several pages per batch, so the kill often lands inside a write
for (let n = 0; ; ) {
  const wave = Array.from({ length: 16 }, () => n++)
  await Promise.all(wave.map((i) => ctx.session.append({ type: 'tool/call', callId: 'c' + i, name: 'x', arguments: { padding } })
    .then(() => process.stdout.write('c' + i + '\\n'))))
}
`,
  )
  return script
}

test('SIGKILL while batches are being written: the log loads, holds every acknowledged append, in order, with no gaps', async () => {
  const dir = await tempDir()
  const log = join(dir, 'session.jsonl')
  const script = await writerScript(dir)
  for (const acksBeforeKill of [40, 300]) {
    const child = spawn(process.execPath, [script, log], { stdio: ['ignore', 'pipe', 'pipe'] })
    const acked: string[] = []
    let stderr = ''
    child.stderr!.on('data', (chunk) => {
      stderr += chunk
    })
    await new Promise<void>((resolve, reject) => {
      let buffered = ''
      child.stdout!.on('data', (chunk) => {
        buffered += chunk
        const lines = buffered.split('\n')
        buffered = lines.pop()!
        acked.push(...lines)
        if (acked.length >= acksBeforeKill) resolve()
      })
      child.on('exit', () => reject(new Error(`the writer exited before it was killed: ${stderr}`)))
    })
    child.kill('SIGKILL')
    expect(await exited(child)).toBe('SIGKILL')

    // Read as a replay tool would: maybe a torn last line, never damage in the middle.
    const left = await readSessionLog(log)
    const callIds = left.events.map((e) => (e as any).callId as string)
    expect(callIds).toEqual(callIds.map((_, i) => `c${i}`)) // append order, no gap, no duplicate
    expect(callIds).toEqual(expect.arrayContaining(acked)) // nothing acknowledged was lost

    // The next writer takes the stale lock over, cuts a torn tail away, and repairs every pending call.
    const { session, fiber } = await open(log)
    expect(session.pendingCalls()).toEqual([])
    expect(session.repaired.map((e) => e.callId)).toEqual(callIds)
    await fiber.dispose()
    await writeFile(log, '') // the second round starts from an empty log
  }
}, 30_000)

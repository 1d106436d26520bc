import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { onCleanup } from '@dshkit/testing'
import { freshSchema, until, useServer, worker } from './helpers.js'

const server = useServer()
const fixture = fileURLToPath(new URL('./fixtures/asker.ts', import.meta.url))
const repo = fileURLToPath(new URL('../../../..', import.meta.url))

/** A worker process (tsx) that asks once; `out` is what it printed. */
function asker(schema: string, name: string, leaseMs: number) {
  const proc = spawn(process.execPath, ['--import', 'tsx', fixture, server.url, schema, name, String(leaseMs)], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  proc.stdout.on('data', (chunk) => void (out += chunk))
  proc.stderr.on('data', (chunk) => void (err += chunk))
  const exited = new Promise((resolve) => proc.on('exit', resolve))
  onCleanup(() => proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL'))
  return {
    proc,
    exited,
    asked: () => until(() => /ASKED (\S+)/.exec(out)?.[1], `the child's ask (stderr: ${err})`, 20_000),
    result: () => until(() => /RESULT (.+)/.exec(out)?.[1], `the child's result (stderr: ${err})`, 20_000).then((json) => JSON.parse(json)),
  }
}

describe('a worker that dies leaves its asks stale', () => {
  test("SIGKILL: once the dead worker's lease ends its ask is stale everywhere, says the call never ran, and cannot be answered", async () => {
    const schema = freshSchema()
    const b = await worker({ connectionString: server.url, schema, worker: 'B', leaseMs: 600 })
    const child = asker(schema, 'doomed', 600)
    const requestId = await child.asked()
    const ask = await until(() => b.approval.pending().find((p) => p.requestId === requestId), 'the ask on B')
    child.proc.kill('SIGKILL')
    await child.exited
    const stale = await until(() => b.approval.stale().find((s) => s.requestId === requestId), 'the ask to go stale on B')
    expect(stale).toMatchObject({ callId: 'c-stale', tool: 'shell', worker: 'doomed', call: 'not-recorded' })
    expect(stale.note).toMatch(
      /^worker doomed stopped renewing its lease \(it ended \d{4}-.*Z\) before anyone answered; the call never ran \(nothing allowed it\)$/,
    )
    expect(b.approval.pending().some((p) => p.requestId === requestId)).toBe(false)
    const late = await b.approval.answer(requestId, ask.argumentsHash, { kind: 'allow' })
    expect(late).toMatchObject({ ok: false, reason: 'stale' })
  })

  test('SIGSTOP past the lease: the ask goes stale; after SIGCONT the paused worker denies its call instead of running it', async () => {
    const schema = freshSchema()
    const b = await worker({ connectionString: server.url, schema, worker: 'B', leaseMs: 600 })
    const child = asker(schema, 'paused', 600)
    const requestId = await child.asked()
    const ask = await until(() => b.approval.pending().find((p) => p.requestId === requestId), 'the ask on B')
    child.proc.kill('SIGSTOP')
    await until(() => b.approval.stale().find((s) => s.requestId === requestId), 'the ask to go stale on B')
    // An answer after the sweep is refused: it can no longer let the call through.
    expect(await b.approval.answer(requestId, ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'stale' })
    child.proc.kill('SIGCONT')
    const result = await child.result()
    expect(result.isError).toBe(true)
    expect(result.message).toMatch(/the ask went stale before anyone answered \(worker paused stopped renewing its lease/)
  })
})

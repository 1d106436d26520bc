import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cleanup, trackSleepers } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { runHook } from '../src/index.js'
import { eventually, fixture, isLive, psMatching, readPid, tempDir } from './helpers.js'

const repo = fileURLToPath(new URL('../../../..', import.meta.url))
const sleepers = trackSleepers()
afterEach(() => {
  sleepers.reap()
})
afterEach(cleanup)

const sleeper = () => sleepers.next()

describe('what a hook started', () => {
  test('a timeout kills descendants that left the process group and session (setsid, double fork, cleared env)', async () => {
    const dir = await tempDir()
    const duration = sleeper()
    const result = await runHook({ command: `${fixture('escaper.sh')} ${dir} ${duration}`, payload: {}, timeoutMs: 2000, graceMs: 300 })
    expect(result.timedOut).toBe(true)
    // Both escapees really started (else the test proves nothing), and none is alive now.
    const escapees = await Promise.all(['setsid', 'daemon', 'cleared'].map((name) => readPid(join(dir, `${name}.pid`))))
    expect(psMatching(`sleep ${duration}`)).toEqual([])
    for (const pid of escapees) expect(await isLive(pid)).toBe(false)
  })

  test('aborting kills a setsid descendant too', async () => {
    const dir = await tempDir()
    const duration = sleeper()
    const controller = new AbortController()
    const running = runHook({ command: `${fixture('escaper.sh')} ${dir} ${duration}`, payload: {}, signal: controller.signal, graceMs: 300 })
    await eventually(() => expect(psMatching(`sleep ${duration}`)).toHaveLength(3), { timeoutMs: 10_000 })
    controller.abort()
    expect(await running).toMatchObject({ aborted: true })
    expect(psMatching(`sleep ${duration}`)).toEqual([])
  })

  test('a hook that exits in time returns within the grace period although a setsid child holds its stdout; the child is left running', async () => {
    const duration = sleeper()
    const result = await runHook({ command: `setsid sleep ${duration} & echo done`, payload: {}, timeoutMs: 30_000, graceMs: 300 })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'done\n' })
    expect(psMatching(`sleep ${duration}`)).toHaveLength(1)
  })
})

describe('payloads', () => {
  test('control characters, lone surrogates and a value far over the pipe buffer arrive as valid JSON', async () => {
    const hostile = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).join('') + '\u007f\u0085\u2028\u2029\ud800 \udfff "\\'
    const payload = { tool_input: { [hostile]: hostile, content: hostile.repeat(5_000) + 'é'.repeat(200_000) } }
    const result = await runHook({ command: `node ${fixture('digest-payload.mjs')}`, payload })
    expect(result.exitCode).toBe(0)
    const sha256 = createHash('sha256').update(JSON.stringify(payload)).digest('hex')
    expect(JSON.parse(result.stdout)).toMatchObject({ sha256 })
  })

  test('a hook that never reads a payload larger than the pipe buffer and sleeps is timed out, not hung', async () => {
    const result = await runHook({ command: 'sleep 30', payload: { content: 'x'.repeat(4 << 20) }, timeoutMs: 500, graceMs: 200 })
    expect(result).toMatchObject({ timedOut: true })
  })

  test('a background child that holds stdin unread does not keep the process alive after the hook returns', async () => {
    const duration = sleeper()
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', fixture('run-once.ts'), `exec 3<&0; sleep ${duration} <&3 3<&- & echo started`, String(4 << 20), '300'],
      { cwd: repo },
    )
    let out = ''
    proc.stdout.on('data', (chunk) => {
      out += chunk
    })
    proc.stderr.on('data', (chunk) => {
      out += chunk
    })
    const exited = new Promise<boolean>((resolve) => proc.on('exit', () => resolve(true)))
    const ended = await Promise.race([exited, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000))])
    if (!ended) proc.kill('SIGKILL')
    expect(out).toContain('RESULT {"exitCode":0,"timedOut":false,"stdout":"started\\n"}')
    expect(ended).toBe(true)
  }, 30_000)
})

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Context } from 'cordis'
import { cleanup, eventually } from '@dshkit/testing'
import TimeoutPolicy from '@dshkit/timeout-policy'
import { afterEach, describe, expect, test } from 'vitest'
import ToolShell from '../src/index.js'
import { psMatching, setup, textOf, uniqueSleep, valueOf } from './helpers.js'

afterEach(cleanup)

describe('the shell tool', () => {
  test('a non-zero exit is a normal result: exit code, then each stream under its name', async () => {
    const { call } = await setup()
    const result = await call('shell', { command: 'echo out; echo err >&2; exit 3', description: 'prints and fails' })
    expect(result.isError).toBe(false)
    expect(valueOf(result)).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      droppedBytes: { stdout: 0, stderr: 0 },
      timedOut: false,
      sandboxed: false,
      timeoutMs: 120_000,
    })
    expect(textOf(result)).toMatch(/^exit code 3 \(\d+ ms\)\nstdout:\nout\n\nstderr:\nerr\n$/)
  })

  test('a command that hits a limit says which, first, and how to raise it', async () => {
    const { call } = await setup({ local: { limits: { processes: 32 } } })
    const result = await call('shell', { command: ':(){ :|:& };:; sleep 100' })
    expect(result.isError).toBe(false)
    expect(valueOf(result)).toMatchObject({ limit: expect.stringMatching(/^limit reached: processes \(processes 32\)/) })
    expect(textOf(result)).toMatch(
      /^limit reached: processes \(processes 32\); the command and everything it started were killed\. Raise limits\.processes if it needs more \(\d+ ms\)\n/,
    )
  })

  test('a silent command says so', async () => {
    const { call } = await setup()
    expect(textOf(await call('shell', { command: 'true' }))).toMatch(/^exit code 0 \(\d+ ms\)\n\(no output\)$/)
  })

  test("cwd is relative to the shell's working directory; a missing one is a tool error in words", async () => {
    const { call, dir } = await setup()
    mkdirSync(join(dir, 'sub'))
    expect(valueOf(await call('shell', { command: 'pwd', cwd: 'sub' }))).toMatchObject({ stdout: `${join(dir, 'sub')}\n` })
    const missing = await call('shell', { command: 'pwd', cwd: 'nope' })
    expect(missing).toMatchObject({
      isError: true,
      error: { code: 'TOOL_ERROR', message: `the working directory ${join(dir, 'nope')} does not exist; create it or pass another cwd` },
    })
  })

  test('a timeout is a normal result with the output so far and a clear note; nothing is left running', async () => {
    const { call } = await setup()
    const duration = uniqueSleep()
    const result = await call('shell', { command: `echo begun; sleep ${duration}`, timeoutMs: 300 })
    expect(result.isError).toBe(false)
    expect(valueOf(result)).toMatchObject({ timedOut: true, exitCode: null, stdout: 'begun\n', timeoutMs: 300 })
    expect(textOf(result)).toMatch(/^timed out after 300 ms: the command and everything it started were killed \(SIGTERM\); the output up to then follows\./)
    expect(psMatching(`sleep ${duration}`)).toEqual([])
  })

  test('bad arguments are refused before anything runs', async () => {
    const { call } = await setup({ tool: { maxTimeoutMs: 1_000, defaultTimeoutMs: 500 } })
    expect(await call('shell', { command: 'true', timeoutMs: 1_001 })).toMatchObject({
      isError: true,
      error: { code: 'INVALID_ARGS', message: expect.stringContaining('timeoutMs must be at most 1000 ms') },
    })
    expect(await call('shell', { command: '' })).toMatchObject({
      isError: true,
      error: { code: 'INVALID_ARGS', message: expect.stringContaining('command must not be empty') },
    })
    expect(await call('shell', { command: 'sleep 5' })).toMatchObject({ isError: false, value: { timedOut: true, timeoutMs: 500 } })
  })

  test('a caller abort kills the command and reports ABORTED', async () => {
    const { call } = await setup()
    const duration = uniqueSleep()
    const controller = new AbortController()
    const pending = call('shell', { command: `sleep ${duration}` }, { signal: controller.signal })
    await eventually(() => expect(psMatching(`sleep ${duration}`)).toHaveLength(1))
    controller.abort()
    expect(await pending).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
    expect(psMatching(`sleep ${duration}`)).toEqual([])
  })

  test("timeout-policy's deadline for the tool ends the command as TOOL_TIMEOUT", async () => {
    const { call } = await setup({ before: [[TimeoutPolicy, { perTool: { shell: 300 } }]] })
    const duration = uniqueSleep()
    const result = await call('shell', { command: `sleep ${duration}`, timeoutMs: 60_000 })
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } })
    expect(psMatching(`sleep ${duration}`)).toEqual([])
  })

  test('the definition: not idempotent, not concurrency-safe, a backstop deadline past the largest timeoutMs', async () => {
    const { ctx } = await setup({ tool: { maxTimeoutMs: 10_000, defaultTimeoutMs: 5_000 } })
    const def = ctx.tools.get('shell')!
    expect(def.idempotent).toBe(false)
    expect(def.isConcurrencySafe).toBeUndefined()
    expect(def.timeoutMs).toBe(40_000)
  })
})

describe('what the model sees', () => {
  test('the value keeps control characters raw; the text drops colour codes and spells out the rest', async () => {
    const { call } = await setup()
    const result = await call('shell', { command: "printf '\\033[31mred\\033[0m bell\\007 nul\\000 cr\\r crlf\\r\\n\\033]0;title\\007 tab\\tend'" })
    expect(valueOf(result).stdout).toBe('\x1b[31mred\x1b[0m bell\x07 nul\0 cr\r crlf\r\n\x1b]0;title\x07 tab\tend')
    expect(textOf(result)).toContain('stdout:\nred bell\\x07 nul\\x00 cr\\r crlf\n\\x1b]0;title\\x07 tab\tend')
  })

  test('a bounded stream says how much was dropped from its start', async () => {
    const { call } = await setup({ local: { maxOutputBytes: 10 } })
    const result = await call('shell', { command: 'seq 1 100' })
    expect(valueOf(result)).toMatchObject({ stdout: '98\n99\n100\n', droppedBytes: { stdout: 282, stderr: 0 } })
    expect(textOf(result)).toContain('stdout (the first 282 bytes were dropped; the last 10 follow):\n98\n99\n100\n')
  })
})

describe('config', () => {
  test.each([
    [{ defaultTimeout: 1 }, 'unknown key; did you mean "defaultTimeoutMs"?'],
    [{ maxTimeoutMs: 0 }, 'maxTimeoutMs must be at least 1 ms'],
    [{ defaultTimeoutMs: 5_000, maxTimeoutMs: 1_000 }, 'defaultTimeoutMs must not be more than maxTimeoutMs'],
  ] as const)('a bad config is refused, naming the key (%#)', async (config, message) => {
    const ctx = new Context()
    await expect(ctx.plugin(ToolShell, config as never)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
  })
})

test("nonZeroExit: 'error' makes a non-zero exit, a kill and a timeout failed calls with the same text; exit 0 stays a result", async () => {
  const { call } = await setup({ tool: { nonZeroExit: 'error' } })
  const failed = await call('shell', { command: 'echo out; echo oops >&2; exit 3' })
  expect(failed).toMatchObject({
    isError: true,
    error: { code: 'TOOL_ERROR', message: expect.stringMatching(/^exit code 3 \(\d+ ms\)\nstdout:\nout\n\nstderr:\noops/) },
  })
  expect(await call('shell', { command: 'kill -9 $$' })).toMatchObject({ isError: true, error: { message: expect.stringMatching(/^killed by SIGKILL/) } })
  expect(await call('shell', { command: 'sleep 5', timeoutMs: 200 })).toMatchObject({
    isError: true,
    error: { message: expect.stringMatching(/^timed out after 200 ms/) },
  })
  expect(await call('shell', { command: 'true' })).toMatchObject({ isError: false, value: { exitCode: 0 } })
})

test('nonZeroExit is checked: a typo is refused with the choices', async () => {
  await expect(setup({ tool: { nonZeroExit: 'fail' as any } })).rejects.toThrow(/nonZeroExit must be "result" \(report the exit code\) or "error"/)
})

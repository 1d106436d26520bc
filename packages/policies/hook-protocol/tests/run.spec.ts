import { join } from 'node:path'
import { cleanup } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { runHook } from '../src/index.js'
import { eventually, fixture, isLive, liveMembers, readPid, tempDir } from './helpers.js'

afterEach(cleanup)

describe('runHook', () => {
  test('sends the payload on stdin, runs in cwd with env, and reads stdout and stderr', async () => {
    const dir = await tempDir()
    const result = await runHook({
      command: `node ${fixture('echo-payload.mjs')}`,
      payload: { tool_name: 'Write', tool_input: { file_path: '/x' } },
      cwd: dir,
      env: { ...process.env, HOOK_TEST: 'yes' },
    })
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false, truncated: false, stderr: 'a note on stderr' })
    expect(result.error).toBeUndefined()
    expect(JSON.parse(result.stdout)).toEqual({
      payload: { tool_name: 'Write', tool_input: { file_path: '/x' } },
      cwd: dir,
      env: 'yes',
    })
  })

  test('runs the command through sh -c, so shell syntax works as in the harness settings', async () => {
    const result = await runHook({ command: 'read -r line; echo "got ${#line} chars" >&2; exit 3', payload: { a: 1 } })
    expect(result).toMatchObject({ exitCode: 3, stderr: 'got 7 chars\n' })
  })

  test('a hook that times out loses its whole process group, background children included', async () => {
    const dir = await tempDir()
    const childFile = join(dir, 'child.pid')
    // Long enough for the script to start its child and write its pid on a loaded machine.
    const result = await runHook({ command: `${fixture('sleeper.sh')} ${childFile}`, payload: {}, timeoutMs: 1000 })
    expect(result.timedOut).toBe(true)
    expect(result.timeoutMs).toBe(1000)
    expect(result.pid).toBeTypeOf('number')
    const child = await readPid(childFile)
    await eventually(() => expect(liveMembers(result.pid!)).toEqual([]))
    expect(await isLive(child)).toBe(false)
  })

  test('a hook that answers in time is not reported as timed out while a background child holds its stdout', async () => {
    const result = await runHook({ command: 'sleep 1.5 & echo done', payload: {}, timeoutMs: 800, graceMs: 5000 })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'done\n' })
  })

  test('a group that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
    const dir = await tempDir()
    const childFile = join(dir, 'child.pid')
    const result = await runHook({ command: `${fixture('stubborn.sh')} ${childFile}`, payload: {}, timeoutMs: 1000, graceMs: 300 })
    expect(result.timedOut).toBe(true)
    const child = await readPid(childFile)
    await eventually(() => expect(liveMembers(result.pid!)).toEqual([]))
    expect(await isLive(child)).toBe(false)
  })

  test('aborting the signal kills the hook like a timeout', async () => {
    const dir = await tempDir()
    const childFile = join(dir, 'child.pid')
    const controller = new AbortController()
    const running = runHook({ command: `${fixture('sleeper.sh')} ${childFile}`, payload: {}, signal: controller.signal })
    await eventually(async () => (await readPid(childFile).catch(() => 0)) > 0)
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ aborted: true, timedOut: false })
    await eventually(() => expect(liveMembers(result.pid!)).toEqual([]))
  })

  test('an already aborted signal does not start the hook', async () => {
    const dir = await tempDir()
    const result = await runHook({ command: `touch ${join(dir, 'ran')}`, payload: {}, signal: AbortSignal.abort() })
    expect(result).toMatchObject({ aborted: true, exitCode: null })
    expect(result.pid).toBeUndefined()
  })

  test('output past the byte cap is dropped and reported as truncated', async () => {
    const result = await runHook({ command: 'head -c 300000 /dev/zero | tr "\\0" a', payload: {}, maxOutputBytes: 1000 })
    expect(result.exitCode).toBe(0)
    expect(result.truncated).toBe(true)
    expect(result.stdout).toBe('a'.repeat(1000))
  })

  test('a hook that never reads a large payload (EPIPE) is an ordinary result, not a crash', async () => {
    const payload = { content: 'x'.repeat(4 << 20) }
    const result = await runHook({ command: 'exit 0', payload })
    expect(result).toMatchObject({ exitCode: 0 })
    expect(result.error).toBeUndefined()
  })

  test('a hook that cannot be spawned is reported in the result, not thrown', async () => {
    const result = await runHook({ command: 'true', payload: {}, cwd: '/nonexistent/dir/for/hook' })
    expect(result.error).toBe('hook working directory does not exist: /nonexistent/dir/for/hook')
    expect(result.exitCode).toBeNull()
  })

  test('a payload that is not JSON is reported in the result', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const result = await runHook({ command: 'true', payload: cyclic })
    expect(result.error).toMatch(/payload is not JSON/)
  })

  test('a crashing node hook reports its exit code and stack', async () => {
    const result = await runHook({ command: `node ${fixture('crash.mjs')}`, payload: {} })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('hook bug: cannot read tool_input')
  })

  test('a hook killed by a signal reports the signal', async () => {
    const result = await runHook({ command: 'kill -SEGV $$', payload: {} })
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGSEGV' })
  })
})

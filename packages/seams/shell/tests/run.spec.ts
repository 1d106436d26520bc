import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { Context } from 'cordis'
import { cleanup, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import Shell from '../src/index.js'
import { testShell } from './helpers.js'

afterEach(cleanup)

describe('what a command returns', () => {
  test('exit code, stdout and stderr come back separately; a non-zero exit is a result, not an error', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: 'echo out; echo err >&2; exit 3' })
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false, sandboxed: false })
    expect(result.stdout).toEqual({ text: 'out\n', droppedBytes: 0 })
    expect(result.stderr).toEqual({ text: 'err\n', droppedBytes: 0 })
    expect(result.error).toBeUndefined()
    expect(result.durationMs).toBeGreaterThan(0)
  })

  test('a command ended by a signal reports the signal and no exit code', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: 'kill -TERM $$' })
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGTERM' })
  })

  test('stdin is what the spec gives (text or bytes), then closed', async () => {
    const shell = await testShell()
    expect((await shell.run({ command: 'cat; echo :done', stdin: 'héllo\n' })).stdout.text).toBe('héllo\n:done\n')
    expect((await shell.run({ command: 'wc -c', stdin: new Uint8Array([1, 2, 3]) })).stdout.text.trim()).toBe('3')
  })

  test('stdin far over the pipe buffer that the command never reads neither hangs the call nor fails it', async () => {
    const shell = await testShell()
    const big = 'x'.repeat(4 * 1024 * 1024)
    expect(await shell.run({ command: 'echo ignored', stdin: big })).toMatchObject({ exitCode: 0, stdout: { text: 'ignored\n' } })
    expect(await shell.run({ command: 'sleep 30', stdin: big, timeoutMs: 300, graceMs: 100 })).toMatchObject({ timedOut: true })
    expect((await shell.run({ command: 'wc -c', stdin: big })).stdout.text.trim()).toBe(String(big.length))
  })

  test('without stdin the command reads an empty input, never the host terminal', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: 'cat; [ -t 0 ] && echo tty || echo no-tty', timeoutMs: 10_000 })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false })
    expect(result.stdout.text).toBe('no-tty\n')
  })

  test('the spec adds environment variables; the process gets its own process group', async () => {
    const shell = await testShell()
    const proc = shell.spawn({ command: 'echo "$GREETING"; ps -o pgid= -p $$', env: { GREETING: 'hi there' } })
    const result = await proc.done
    const [greeting, pgid] = result.stdout.text.split('\n')
    expect(greeting).toBe('hi there')
    expect(Number(pgid)).toBe(proc.pid)
    expect(Number(pgid)).not.toBe(Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' })))
  })
})

describe('the run marker', () => {
  test('every process of a command carries one marker, unique to that command (what the reaper finds escapees by)', async () => {
    const shell = await testShell()
    const markers = async () =>
      (await shell.run({ command: 'env | grep ^DSHKIT_SHELL_RUN_; sh -c "env | grep ^DSHKIT_SHELL_RUN_"' })).stdout.text.trim().split('\n')
    const [first, second] = [await markers(), await markers()]
    expect(first).toHaveLength(2)
    expect(first[0]).toMatch(/^DSHKIT_SHELL_RUN_[0-9a-f]{16}_[0-9a-z]+=1$/)
    expect(first[1]).toBe(first[0])
    expect(second[0]).not.toBe(first[0])
  })
})

describe('working directory', () => {
  test("a relative cwd resolves against the provider's cwd; absent means the provider's cwd", async () => {
    const dir = await tempDir()
    mkdirSync(join(dir, 'sub'))
    const shell = await testShell({ cwd: dir })
    expect((await shell.run({ command: 'pwd' })).stdout.text).toBe(`${dir}\n`)
    expect((await shell.run({ command: 'pwd', cwd: 'sub' })).stdout.text).toBe(`${join(dir, 'sub')}\n`)
    expect((await shell.run({ command: 'pwd', cwd: '/' })).stdout.text).toBe('/\n')
  })

  test('a missing cwd is named as the problem (not the shell)', async () => {
    const dir = await tempDir()
    const shell = await testShell({ cwd: dir })
    const result = await shell.run({ command: 'true', cwd: 'nope' })
    expect(result.error).toBe(`the working directory ${join(dir, 'nope')} does not exist; create it or pass another cwd`)
    expect(result).toMatchObject({ exitCode: null, signal: null })
  })

  test('a file, a FIFO or a device as cwd is refused at once as not a directory', async () => {
    const dir = await tempDir()
    writeFileSync(join(dir, 'file'), 'x')
    execFileSync('mkfifo', [join(dir, 'fifo')])
    const shell = await testShell({ cwd: dir })
    for (const cwd of [join(dir, 'file'), join(dir, 'fifo'), '/dev/null']) {
      expect((await shell.run({ command: 'true', cwd })).error).toBe(`the working directory ${cwd} is not a directory; pass a directory as cwd`)
    }
    expect((await shell.run({ command: 'true', cwd: join(dir, 'file', 'below') })).error).toMatch(/is not a directory \(a part of the path is a file\)/)
  })
})

describe('commands that cannot start', () => {
  test('a missing shell program says which program and what to do', async () => {
    const shell = await testShell({ file: '/nonexistent/bash' })
    const result = await shell.run({ command: 'true' })
    expect(result.error).toBe(
      'could not start the command: the program "/nonexistent/bash" was not found; install it or configure the shell provider to use another',
    )
  })

  test('a provider that refuses to launch gives its reason', async () => {
    const shell = await testShell({ refuse: 'bubblewrap is not installed' })
    expect((await shell.run({ command: 'true' })).error).toBe('could not prepare the command: bubblewrap is not installed')
  })

  test('a NUL character in the command is refused in words, not thrown', async () => {
    const shell = await testShell()
    expect((await shell.run({ command: 'echo a\0b' })).error).toBe(
      'could not start the command: it contains a NUL character, which a command line cannot carry',
    )
  })

  test('a NUL in the environment or the cwd, and a command longer than the system takes, are refused in words', async () => {
    const shell = await testShell()
    expect((await shell.run({ command: 'true', env: { A: 'x\0y' } })).error).toBe(
      'could not start the command: an environment variable holds a NUL character, which an environment cannot carry',
    )
    expect((await shell.run({ command: 'true', cwd: '/tmp\0x' })).error).toBe(
      'the working directory "/tmp\\u0000x" holds a NUL character, which no path can; pass a directory as cwd',
    )
    expect((await shell.run({ command: `echo ${'x'.repeat(300_000)}` })).error).toMatch(
      /^could not start the command: the command line or environment is too long for the system \(E2BIG\)/,
    )
  })

  test('a signal aborted before the start runs nothing', async () => {
    const dir = await tempDir()
    const shell = await testShell({ cwd: dir })
    const result = await shell.run({ command: 'touch ran', signal: AbortSignal.abort() })
    expect(result).toMatchObject({ aborted: true, error: 'aborted before the command started' })
    expect(execFileSync('ls', [dir], { encoding: 'utf8' })).toBe('')
  })

  test('nonsense limits are refused with the value and the valid range', async () => {
    const shell = await testShell()
    expect((await shell.run({ command: 'true', timeoutMs: 0 })).error).toMatch(/^timeoutMs must be between 1 and 2147483647 ms \(got 0\)/)
    expect((await shell.run({ command: 'true', timeoutMs: Number.NaN })).error).toMatch(/got NaN/)
    expect((await shell.run({ command: 'true', maxOutputBytes: -1 })).error).toMatch(/^maxOutputBytes must be a whole number of bytes/)
    expect((await shell.run({ command: 'true', graceMs: Infinity })).error).toMatch(/^graceMs must be between 0/)
  })
})

describe('the seam plugin', () => {
  test('takes no config and points at the provider', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(Shell, { cwd: '/tmp' } as never)).rejects.toThrow(
      /unknown key "cwd": @dshkit\/shell is only the seam and takes no config; configure the provider instead/,
    )
    await ctx.plugin(Shell, {})
  })
})

test("a launch's fd3 bytes reach the program on fd 3, every byte and past a pipe's buffer, then EOF", async () => {
  const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff))
  const shell = await testShell({ fd3: bytes })
  const result = await shell.run({ command: 'od -An -v -tx1 <&3 | tr -d " \\n" | sha256sum' })
  expect(result.stdout.text.slice(0, 64)).toBe(createHash('sha256').update(bytes.toString('hex')).digest('hex'))
  // Without fd3 in the launch, fd 3 is not open at all.
  const plain = await testShell()
  expect((await plain.run({ command: 'cat <&3 2>/dev/null || echo closed' })).stdout.text).toBe('closed\n')
})

import { randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { ShellService } from './service.js'

/** A provider's shell under test, fresh for each test: `dir` is a writable folder it runs commands in (its cwd). */
export interface ShellUnderTest {
  shell: ShellService
  dir: string
}

/**
 * The shell seam's contract, as vitest tests every provider runs: `describeShellProvider('my-shell', open)` in one of
 * its spec files. What the seam promises (exit codes and both streams, stdin and env, cwd, bounded output, and a
 * timeout, an abort or a kill that ends the whole tree) is checked once here, the same way, for each provider.
 */
export function describeShellProvider(name: string, open: () => Promise<ShellUnderTest>): void {
  describe(`${name} keeps the shell seam's contract`, () => {
    describeRunning(open)
    describeEnding(open)
  })
}

function describeRunning(open: () => Promise<ShellUnderTest>) {
  test('both streams and the exit code come back; sandboxed says what the provider is', async () => {
    const { shell } = await open()
    const result = await shell.run({ command: 'printf out; printf err >&2; exit 3' })
    expect(result).toMatchObject({ exitCode: 3, signal: null, stdout: { text: 'out', droppedBytes: 0 }, stderr: { text: 'err' }, sandboxed: shell.sandboxed })
    expect(result).toMatchObject({ timedOut: false, aborted: false })
    expect(result.error).toBeUndefined()
  })

  test("stdin is written then closed (empty when not given); the spec's env is set", async () => {
    const { shell } = await open()
    expect((await shell.run({ command: 'cat; printf "[$CONFORMANCE_X]"', stdin: 'in', env: { CONFORMANCE_X: 'x y' } })).stdout.text).toBe('in[x y]')
    expect((await shell.run({ command: 'cat | wc -c' })).stdout.text.trim()).toBe('0')
  })

  test('a relative cwd resolves against the default one; a missing cwd is an error result, not a throw', async () => {
    const { shell, dir } = await open()
    await mkdir(join(dir, 'sub dir'), { recursive: true })
    expect((await shell.run({ command: 'pwd' })).stdout.text).toBe(`${shell.cwd}\n`)
    expect((await shell.run({ command: 'pwd', cwd: 'sub dir' })).stdout.text).toBe(`${join(shell.cwd, 'sub dir')}\n`)
    const missing = await shell.run({ command: 'echo never', cwd: 'no such dir' })
    expect(missing.error).toEqual(expect.any(String))
    expect(missing.stdout.text).toBe('')
  })

  test('output past maxOutputBytes is dropped and counted, per stream; bytes that are not UTF-8 are replaced, not fatal', async () => {
    const { shell } = await open()
    const big = await shell.run({ command: "head -c 3000000 /dev/zero | tr '\\0' a; printf small >&2", maxOutputBytes: 1000 })
    expect(big.exitCode).toBe(0)
    expect(Buffer.byteLength(big.stdout.text)).toBeLessThanOrEqual(1000)
    expect(Buffer.byteLength(big.stdout.text) + big.stdout.droppedBytes).toBe(3_000_000)
    expect(big.stderr).toEqual({ text: 'small', droppedBytes: 0 })
    expect((await shell.run({ command: "printf 'a\\377b'" })).stdout.text).toBe('a\ufffdb')
  })
}

function describeEnding(open: () => Promise<ShellUnderTest>) {
  test('a timeout ends the whole tree, background children and a child that ignores SIGTERM included', async () => {
    const { shell } = await open()
    const tag = uniqueTag()
    const result = await shell.run({ command: tree(tag), timeoutMs: 500, graceMs: 300 })
    expect(result).toMatchObject({ timedOut: true, aborted: false })
    expect(await processesTagged(tag)).toEqual([])
  })

  test('aborting ends the whole tree and the result says so; an already aborted signal runs nothing', async () => {
    const { shell, dir } = await open()
    const tag = uniqueTag()
    const controller = new AbortController()
    const running = shell.spawn({ command: tree(tag), signal: controller.signal, graceMs: 300 })
    await waitForTagged(tag)
    controller.abort()
    expect(await running.done).toMatchObject({ aborted: true, timedOut: false })
    expect(await processesTagged(tag)).toEqual([])
    const before = new AbortController()
    before.abort()
    expect(await shell.run({ command: 'echo ran > ran.txt', signal: before.signal })).toMatchObject({ aborted: true })
    expect(await readdir(dir)).not.toContain('ran.txt')
  })

  test('kill() ends the whole tree and resolves with the result', async () => {
    const { shell } = await open()
    const tag = uniqueTag()
    const running = shell.spawn({ command: tree(tag), graceMs: 300 })
    await waitForTagged(tag)
    const result = await running.kill('conformance')
    expect(result.exitCode).toBe(null)
    expect(await processesTagged(tag)).toEqual([])
    expect(await running.done).toBe(result)
  })
}

const uniqueTag = () => `shell-conformance-${randomBytes(6).toString('hex')}`

/** Two background children (one ignoring SIGTERM) and a foreground one, each carrying `tag` in its argv. */
const tree = (tag: string) => `sh -c 'sleep 1000; : ${tag}' & sh -c 'trap "" TERM; while :; do sleep 1; done; : ${tag}' & sh -c 'sleep 1000; : ${tag}'`

/** Host pids whose argv holds `tag` (a pid namespace's processes are visible from the host, too). */
async function processesTagged(tag: string): Promise<number[]> {
  const found: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const argv = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (argv.includes(tag) && Number(entry) !== process.pid) found.push(Number(entry))
  }
  return found
}

/** Polls until the tree is up (a slow machine starts it late); no time is asserted. */
async function waitForTagged(tag: string) {
  for (let i = 0; i < 400; i++) {
    if ((await processesTagged(tag)).length >= 3) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`the test's process tree (${tag}) did not start within 10 s`)
}

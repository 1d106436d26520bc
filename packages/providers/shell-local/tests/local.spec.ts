import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Context } from 'cordis'
import { processLimitMechanism } from '@dshkit/process'
import { boot, cleanup, psMatching, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import ShellLocal, { defaultShell, type ConfigInput } from '../src/index.js'

afterEach(cleanup)

async function localShell(config?: ConfigInput) {
  const { ctx } = await boot({ plugins: [[ShellLocal, config]] })
  return ctx.shell
}

describe('shell-local', () => {
  test("runs bash -c in cwd, unconfined, with the command's exit code", async () => {
    const dir = await tempDir()
    const shell = await localShell({ cwd: dir })
    expect(shell.sandboxed).toBe(false)
    expect(shell.cwd).toBe(dir)
    const result = await shell.run({ command: 'echo "$BASH_VERSION" | grep -c . ; pwd; exit 2' })
    expect(result).toMatchObject({ exitCode: 2, sandboxed: false, stdout: { text: `1\n${dir}\n` } })
  })

  test("cwd defaults to the process's working directory", async () => {
    const shell = await localShell()
    expect(shell.cwd).toBe(process.cwd())
  })

  test('a cwd that does not exist fails the start with one clear line', async () => {
    const dir = await tempDir()
    const ctx = new Context()
    await expect(ctx.plugin(ShellLocal, { cwd: join(dir, 'missing') })).rejects.toThrow(
      `shell-local: cwd ${join(dir, 'missing')} is not an existing directory; create it or set shell-local's cwd`,
    )
  })

  test("env adds variables over the inherited environment; a spec's env goes over both", async () => {
    process.env.DSHKIT_TEST_INHERITED = 'from host'
    try {
      const shell = await localShell({ env: { ADDED: 'a', DSHKIT_TEST_INHERITED: 'overridden' } })
      const result = await shell.run({ command: 'echo "$ADDED $DSHKIT_TEST_INHERITED $SPEC"', env: { SPEC: 's', ADDED: 'b' } })
      expect(result.stdout.text).toBe('b overridden s\n')
    } finally {
      delete process.env.DSHKIT_TEST_INHERITED
    }
  })

  test("inheritEnv: false keeps PATH and HOME but not the host's secrets", async () => {
    process.env.DSHKIT_TEST_SECRET = 'hunter2'
    try {
      const shell = await localShell({ inheritEnv: false, env: { ADDED: 'a' } })
      const result = await shell.run({ command: 'echo "[$DSHKIT_TEST_SECRET] $ADDED"; command -v ls >/dev/null && echo found-ls; [ -n "$HOME" ] && echo home' })
      expect(result.stdout.text).toBe('[] a\nfound-ls\nhome\n')
    } finally {
      delete process.env.DSHKIT_TEST_SECRET
    }
  })

  test('defaultTimeoutMs and maxOutputBytes apply when a command names none; its own win', async () => {
    const shell = await localShell({ defaultTimeoutMs: 200, maxOutputBytes: 4, graceMs: 100 })
    expect(await shell.run({ command: 'sleep 5' })).toMatchObject({ timedOut: true })
    expect(await shell.run({ command: 'sleep 0.5; echo 123456', timeoutMs: 5_000 })).toMatchObject({
      timedOut: false,
      stdout: { text: '456\n', droppedBytes: 3 },
    })
    expect((await shell.run({ command: 'echo 123456', maxOutputBytes: 100 })).stdout.text).toBe('123456\n')
  })

  test("limits apply to every command, key by key over the defaults; a command's own win", async () => {
    const shell = await localShell({ limits: { openFiles: 77, cpuSeconds: false } })
    expect((await shell.run({ command: 'ulimit -n; ulimit -t; ulimit -v' })).stdout.text).toBe(`77\nunlimited\n${8 * 1024 * 1024}\n`)
    expect((await shell.run({ command: 'ulimit -n', limits: { openFiles: 55 } })).stdout.text).toBe('55\n')
  })

  test('shell names the program; a missing one is reported by each command, in words', async () => {
    expect((await localShell({ shell: '/bin/sh' }).then((shell) => shell.run({ command: 'echo $0' }))).stdout.text).toBe('/bin/sh\n')
    const result = await localShell({ shell: '/no/such/shell' }).then((shell) => shell.run({ command: 'true' }))
    expect(result.error).toBe(
      'could not start the command: the program "/no/such/shell" was not found; install it or configure the shell provider to use another',
    )
  })

  test('without bash on PATH the default is sh', async () => {
    const dir = await tempDir()
    mkdirSync(join(dir, 'bin'))
    expect(defaultShell(join(dir, 'bin'))).toBe('sh')
    expect(defaultShell('/usr/bin:/bin')).toMatch(/\/bash$/)
  })
})

describe('config', () => {
  test.each([
    [{ defaultTimeout: 10 }, 'unknown key; did you mean "defaultTimeoutMs"? (at defaultTimeout)'],
    [{ maxOutputByte: 10 }, 'unknown key; did you mean "maxOutputBytes"? (at maxOutputByte)'],
    [{ env: { 'A=B': 'x' } }, 'an environment variable name must be non-empty and hold no "=" or NUL character'],
    [{ env: JSON.parse('{"__proto__": "x"}') }, 'env may not set "__proto__" (it would be lost); pick another variable name'],
    [{ env: { A: 'x\0y' } }, 'an environment value may not hold a NUL character'],
    [{ defaultTimeoutMs: 0 }, 'defaultTimeoutMs must be at least 1 ms'],
    [{ defaultTimeoutMs: 2 ** 31 }, 'defaultTimeoutMs must be at most 2147483647 ms'],
    [{ maxOutputBytes: 1.5 }, 'maxOutputBytes must be a whole number of bytes'],
    [{ limits: { openFile: 10 } }, 'unknown key; did you mean "openFiles"? (at limits.openFile)'],
    [{ limits: { processes: 0 } }, 'limits.processes must be a positive whole number of processes, or false to set none'],
    [{ limits: { memoryBytes: true } }, 'limits.memoryBytes must be a positive whole number of bytes, or false to set none'],
  ] as const)('a bad config is refused, naming the key and what to do (%#)', async (config, message) => {
    const ctx = new Context()
    await expect(ctx.plugin(ShellLocal, config as never)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
  })
})

describe.skipIf(processLimitMechanism() !== 'cgroup')('detached daemons', () => {
  test.each([
    ['setsid … &', (tag: string) => `setsid sleep 1000 ${tag} </dev/null >/dev/null 2>&1 &`],
    ['nohup setsid … &', (tag: string) => `nohup setsid sleep 1000 ${tag} </dev/null >/dev/null 2>&1 &`],
    ['a double fork', (tag: string) => `( setsid sh -c 'sleep 1000 ${tag} & exit' </dev/null >/dev/null 2>&1 & )`],
  ])('%s does not survive the call (ps finds nothing of it)', async (_name, spell) => {
    const shell = await localShell()
    // A word only this test's sleep carries: `sleep 1000 <tag>` sleeps the sum, and ps shows the tag.
    const tag = String(10_000 + Math.floor(Math.random() * 80_000))
    const result = await shell.run({ command: `${spell(tag)}\nsleep 0.3; echo started` })
    expect(result.stdout.text).toBe('started\n')
    expect(psMatching(`sleep 1000 ${tag}`)).toEqual([])
  })
})

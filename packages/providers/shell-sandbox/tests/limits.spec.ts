import { randomBytes } from 'node:crypto'
import { cleanup, psMatching } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import type { ShellSpec } from '@dshkit/shell'
import { bootSandbox, makeTree } from './helpers.js'

afterEach(cleanup)

const GiB = 1024 ** 3

/** The command under a unique word (every process it forks shows it in `ps`), run while a timer ticks and another command runs. */
async function hostile(line: string, config: Parameters<typeof bootSandbox>[1], spec: Partial<ShellSpec> = {}) {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root, config)
  const tag = `dshkit-limits-${randomBytes(6).toString('hex')}`
  let ticks = 0
  const timer = setInterval(() => ticks++, 20)
  const running = shell.run({ command: `: ${tag}; ${line}`, timeoutMs: 60_000, graceMs: 200, ...spec })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const beside = await shell.run({ command: 'echo beside', timeoutMs: 30_000 })
  const result = await running
  clearInterval(timer)
  return { result, ticks, beside, left: psMatching(tag) }
}

test('a fork bomb the shell leaves behind dies with the sandbox; nothing is left', async () => {
  const { result, beside, left } = await hostile(':(){ :|:& };:', { limits: { processes: 64 } })
  expect(result).toMatchObject({ sandboxed: true, timedOut: false })
  expect(beside).toMatchObject({ exitCode: 0, stdout: { text: 'beside\n' } })
  expect(left).toEqual([])
})

test.each([
  ['then sleep', ':(){ :|:& };:; sleep 100'],
  ['then wait', ':(){ :|:& };:; wait'],
  ['in a subshell', '(bomb(){ bomb | bomb & }; bomb; sleep 100)'],
])('a fork bomb (%s) inside the sandbox hits the process limit; the host stays responsive and nothing is left', async (_name, line) => {
  const { result, ticks, beside, left } = await hostile(line, { limits: { processes: 64 } })
  expect(result).toMatchObject({ limit: 'processes', sandboxed: true, timedOut: false })
  expect(ticks).toBeGreaterThan(5)
  expect(beside).toMatchObject({ exitCode: 0, stdout: { text: 'beside\n' } })
  expect(left).toEqual([])
})

test.each([
  ['head | tail', 'head -c 20G /dev/zero | tail'],
  ['python', `python3 -c 'b = bytearray(20 * 2**30)'`],
])('a 20 GB allocation (%s) inside the sandbox hits the memory limit', async (_name, line) => {
  const { result, ticks, beside, left } = await hostile(line, { limits: { memoryBytes: GiB } })
  expect(result).toMatchObject({ limit: 'memory', sandboxed: true })
  expect(ticks).toBeGreaterThan(5)
  expect(beside.exitCode, beside.stderr.text).toBe(0)
  expect(left).toEqual([])
})

test('the default limits apply inside the sandbox', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({ command: 'ulimit -v; ulimit -n; ulimit -f' })
  // bash counts ulimit -f in KiB.
  expect(result.stdout.text).toBe(`${(8 * GiB) / 1024}\n4096\n${(16 * GiB) / 1024}\n`)
})

test.each([
  [{ proceses: 5 }, /did you mean "processes"\? \(at limits\.proceses\)/],
  [{ memoryBytes: -1 }, /limits\.memoryBytes.*must be a positive whole number of bytes, or false/],
  [{ cpuSeconds: '60' }, /limits\.cpuSeconds.*must be a positive whole number of seconds/],
])('a bad limits key or value is an error at start: %o', async (limits, message) => {
  const { root } = await makeTree()
  await expect(bootSandbox(root, { limits } as never)).rejects.toThrow(message)
})

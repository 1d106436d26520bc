import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cleanup, eventually, psMatching } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import type { ShellSpec } from '@dshkit/shell'
import { processLimitMechanism } from '@dshkit/process'
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

/** The processes in each of this process's per-call cgroups (pids hierarchy), by cgroup. */
function callCgroups(): Record<string, string[]> {
  const parent = `/sys/fs/cgroup/pids/dshkit-${process.pid}`
  const out: Record<string, string[]> = {}
  for (const name of readdirSync(parent).filter((entry) => /^c\d+$/.test(entry)))
    out[name] = readFileSync(`${parent}/${name}/cgroup.procs`, 'utf8').split('\n').filter(Boolean)
  return out
}

test.skipIf(processLimitMechanism() !== 'cgroup' || !existsSync(`/sys/fs/cgroup/pids`))(
  "the sandboxed command (bubblewrap and all under it) runs in the call's own cgroup, one per call",
  async () => {
    const { root } = await makeTree()
    const { shell } = await bootSandbox(root, { limits: { processes: 64 } })
    const tag = `dshkit-cgroup-${randomBytes(6).toString('hex')}`
    const running = [shell.spawn({ command: `: ${tag}-a; sleep 30` }), shell.spawn({ command: `: ${tag}-b; sleep 30` })]
    // Each call's bash (and bubblewrap above it) sits in a cgroup of its own; no process of theirs outside one.
    await eventually(() => {
      const groups = Object.values(callCgroups()).filter((pids) => pids.length)
      expect(groups.length).toBe(2)
      for (const suffix of ['a', 'b']) {
        const pids = psMatching(`${tag}-${suffix}`)
        expect(pids.length).toBeGreaterThan(0)
        expect(groups.filter((group) => pids.every((pid) => group.includes(String(pid)))).length).toBe(1)
      }
    })
    const results = await Promise.all(running.map((run) => run.kill()))
    // The rlimits reach the command too.
    const limits = await shell.run({ command: 'cat /proc/self/limits' })
    expect(limits.stdout.text).toMatch(/Max open files\s+4096\s+4096/)
    expect(results.every((result) => result.signal || result.exitCode !== 0)).toBe(true)
  },
)

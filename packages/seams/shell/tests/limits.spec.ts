import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, countLoopTurns, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { DEFAULT_LIMITS, limitMessage } from '@dshkit/process'
import type { ShellService, ShellSpec } from '../src/index.js'
import { fixture, ourZombies, psMatching, testShell } from './helpers.js'

afterEach(cleanup)
afterEach(() => expect(ourZombies()).toEqual([]))

const GiB = 1024 ** 3
// `wait` keeps the line running until the limit ends it: without it the line exits at once and its
// orphans are reaped as any background leftovers, before the bomb reaches the limit on a slow machine.
const FORK_BOMB = ':(){ :|:& };:; wait'

/** Runs `spec` while a second command runs and the event loop's turns are counted: the host process stays responsive. */
async function runBeside(shell: ShellService, spec: ShellSpec) {
  const turns = countLoopTurns()
  const running = shell.run(spec)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const beside = await shell.run({ command: 'echo beside', timeoutMs: 30_000 })
  const result = await running
  return { result, ticks: turns.stop(), beside }
}

/** A unique word in the command line: every process the line forks shows it in `ps`. */
const tagged = (command: string) => {
  const tag = `dshkit-limits-${randomBytes(6).toString('hex')}`
  return { tag, command: `: ${tag}; ${command}` }
}

describe('a command that hits a limit ends with it named, and nothing is left', () => {
  test('a fork bomb hits the process limit, the tree is killed, the host stays responsive', async () => {
    const shell = await testShell()
    const { tag, command } = tagged(FORK_BOMB)
    const { result, ticks, beside } = await runBeside(shell, { command, timeoutMs: 60_000, graceMs: 200, limits: { processes: 64 } })
    expect(result).toMatchObject({ limit: 'processes', timedOut: false })
    expect(ticks).toBeGreaterThan(5)
    expect(beside).toMatchObject({ exitCode: 0, stdout: { text: 'beside\n' } })
    expect(psMatching(tag)).toEqual([])
    expect(limitMessage('processes', { ...DEFAULT_LIMITS, processes: 64 })).toMatch(/^limit reached: processes \(processes 64\)/)
  })

  test('the classic fork bomb, whose line exits at once, leaves nothing running either', async () => {
    const shell = await testShell()
    const { tag, command } = tagged(':(){ :|:& };:')
    const { result, ticks, beside } = await runBeside(shell, { command, timeoutMs: 60_000, graceMs: 200, limits: { processes: 64 } })
    expect(result.timedOut).toBe(false)
    expect(ticks).toBeGreaterThan(5)
    expect(beside).toMatchObject({ exitCode: 0, stdout: { text: 'beside\n' } })
    expect(psMatching(tag)).toEqual([])
  })

  test.each([
    ['head | tail', 'head -c 20G /dev/zero | tail'],
    ['python', `python3 -c 'b = bytearray(20 * 2**30); print(len(b))'`],
    ['node', `node -e 'const a = []; for (let i = 0; i < 320; i++) a.push(Buffer.allocUnsafe(2 ** 26)); console.log(a.length)'`],
  ])('a 20 GB allocation (%s) hits the memory limit', async (_name, line) => {
    const shell = await testShell()
    const { tag, command } = tagged(line)
    const { result, ticks, beside } = await runBeside(shell, { command, timeoutMs: 60_000, limits: { memoryBytes: GiB } })
    expect(result.limit).toBe('memory')
    expect(result.stdout.text).toBe('')
    expect(ticks).toBeGreaterThan(5)
    expect(beside.exitCode).toBe(0)
    expect(psMatching(tag)).toEqual([])
  })

  test('a busy loop hits the cpu time limit', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: 'while :; do :; done', timeoutMs: 60_000, limits: { cpuSeconds: 1 } })
    expect(result).toMatchObject({ limit: 'cpu time', timedOut: false })
  })

  test('writing past the file size limit is stopped there', async () => {
    const dir = await tempDir()
    const shell = await testShell({ cwd: dir })
    const result = await shell.run({ command: 'head -c 10M /dev/zero > big; echo "status $?"', limits: { fileSizeBytes: 1024 * 1024 } })
    expect(statSync(join(dir, 'big')).size).toBe(1024 * 1024)
    expect(result.stdout.text).toBe('status 153\n')
    const direct = await shell.run({ command: 'exec head -c 10M /dev/zero > big2', limits: { fileSizeBytes: 1024 * 1024 } })
    expect(direct.limit).toBe('file size')
  })

  test('opening more files than allowed names the open files limit', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: `python3 -c 'fs = [open("/dev/null") for _ in range(100)]'`, limits: { openFiles: 32 } })
    expect(result.limit).toBe('open files')
  })

  test('within the limits nothing is named; each limit is set as configured, false sets none', async () => {
    const shell = await testShell()
    const fine = await shell.run({ command: 'for i in 1 2 3; do sleep 0.01 & done; wait; echo ok', limits: { processes: 64 } })
    expect(fine).toMatchObject({ exitCode: 0, stdout: { text: 'ok\n' } })
    expect(fine.limit).toBeUndefined()
    const lifted = await shell.run({ command: 'ulimit -v; ulimit -t', limits: { memoryBytes: false, cpuSeconds: false } })
    expect(lifted.stdout.text).toBe('unlimited\nunlimited\n')
    const set = await shell.run({ command: 'ulimit -v; ulimit -t; ulimit -Ht; ulimit -n', limits: { memoryBytes: GiB, cpuSeconds: 7, openFiles: 99 } })
    expect(set.stdout.text).toBe(`${GiB / 1024}\n7\n12\n99\n`)
  })

  test('a bad limit is a one-line error naming it, and nothing runs', async () => {
    const shell = await testShell()
    const typo = await shell.run({ command: 'echo ran', limits: { proceses: 5 } as never })
    expect(typo.error).toMatch(/^unknown limit "proceses"; the limits are processes, memoryBytes/)
    const zero = await shell.run({ command: 'echo ran', limits: { processes: 0 } })
    expect(zero.error).toBe('limits.processes must be a positive whole number or false (no limit); got 0')
    expect(zero.stdout.text).toBe('')
  })

  test('a missing program is still reported as such behind the limits wrapper', async () => {
    const shell = await testShell({ file: 'no-such-shell-dshkit' })
    const result = await shell.run({ command: 'true' })
    expect(result.error).toMatch(/the program "no-such-shell-dshkit" was not found/)
  })
})

// Needs root: a mount namespace where every cgroup is read-only, and a guard cgroup around the test.
const GUARD_PARENT = '/sys/fs/cgroup/pids'
const asRoot = process.getuid?.() === 0 && statSync(GUARD_PARENT, { throwIfNoEntry: false })?.isDirectory() === true

/** Runs `command` through the seam in a child node whose cgroups are all read-only, itself held under a guard pids.max. */
function runWithoutCgroups(command: string, limits: object) {
  const guard = join(GUARD_PARENT, `dshkit-test-guard-${randomBytes(4).toString('hex')}`)
  mkdirSync(guard)
  try {
    // If the watcher failed, the guard (not the machine) would stop the bomb.
    writeFileSync(join(guard, 'pids.max'), '4000')
    const readOnly = 'for m in $(awk \'$9 ~ /^cgroup2?$/ {print $5}\' /proc/self/mountinfo); do mount -o remount,bind,ro "$m" || exit 99; done'
    const script = `echo $$ > ${guard}/cgroup.procs && exec unshare -m --propagation private sh -c '${readOnly.replaceAll("'", "'\\''")}; exec "$0" "$@"' node "$@"`
    const out = execFileSync('sh', ['-c', script, 'sh', fixture('shell-run.mjs'), command, JSON.stringify(limits)], { encoding: 'utf8', timeout: 90_000 })
    return JSON.parse(out)
  } finally {
    rmdirSync(guard)
  }
}

describe.skipIf(!asRoot)('where no cgroup is writable', () => {
  test('a watcher counts the tree (orphans too) and a fork bomb still ends as a process-limit hit, nothing left', () => {
    const { tag, command } = tagged(`${FORK_BOMB}; sleep 100`)
    const { mechanism, result, ticks } = runWithoutCgroups(command, { processes: 64 })
    expect(mechanism).toBe('watcher')
    expect(result).toMatchObject({ limit: 'processes', timedOut: false })
    expect(ticks).toBeGreaterThan(0) // the event loop turned while the bomb ran (a short run on a loaded machine gives few ticks)
    expect(psMatching(tag)).toEqual([])
  })

  test('the rlimits still hold: a 20 GB allocation hits the memory limit', () => {
    const { mechanism, result } = runWithoutCgroups(`python3 -c 'b = bytearray(20 * 2**30)'`, { memoryBytes: GiB })
    expect(mechanism).toBe('watcher')
    expect(result.limit).toBe('memory')
  })
})

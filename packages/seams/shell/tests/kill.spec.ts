import { join } from 'node:path'
import { cleanup, eventually, tempDir, trackSleepers } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { processLimitMechanism } from '@dshkit/process'
import { fixture, isLive, killAll, ourZombies, psMatching, readPid, testShell } from './helpers.js'

const sleepers = trackSleepers()
afterEach(cleanup)
// After each test nothing it started may be alive: asserted, and cleaned up so one failure stays one.
afterEach(() => {
  expect(sleepers.reap()).toEqual([])
  expect(ourZombies()).toEqual([])
})

const sleeper = () => sleepers.next()

describe('timeout, abort and kill end the whole tree', () => {
  test('a timeout kills the command and its children; the result says timedOut', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const started = performance.now()
    const result = await shell.run({ command: `sleep ${duration} & sleep ${duration}; echo never`, timeoutMs: 200 })
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitCode: null, signal: 'SIGTERM' })
    expect(result.stdout.text).toBe('')
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  test('a command that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const result = await shell.run({ command: `trap '' TERM; echo ready; sleep ${duration}; sleep ${duration}`, timeoutMs: 300, graceMs: 200 })
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' })
    expect(result.stdout.text).toBe('ready\n')
  })

  test('setsid and double-fork escapees are killed on timeout', async () => {
    const dir = await tempDir()
    const shell = await testShell()
    const duration = sleeper()
    const result = await shell.run({ command: `${fixture('escaper.sh')} ${dir} ${duration}`, timeoutMs: 1_000, graceMs: 200 })
    expect(result.timedOut).toBe(true)
    // Both escapees really started (else the test proves nothing), and neither is alive now.
    for (const name of ['setsid', 'daemon']) expect(await isLive(await readPid(join(dir, `${name}.pid`)))).toBe(false)
  })

  test('aborting kills setsid escapees too, and resolves promptly', async () => {
    const dir = await tempDir()
    const shell = await testShell()
    const duration = sleeper()
    const controller = new AbortController()
    const proc = shell.spawn({ command: `${fixture('escaper.sh')} ${dir} ${duration}`, signal: controller.signal, graceMs: 200 })
    await eventually(() => expect(psMatching(`sleep ${duration}`)).toHaveLength(3), { timeoutMs: 10_000 })
    const aborted = performance.now()
    controller.abort()
    const result = await proc.done
    expect(performance.now() - aborted).toBeLessThan(2_000)
    expect(result).toMatchObject({ aborted: true, timedOut: false })
    expect(result.stdout.text).toBe('started\n')
  })

  test('kill() ends the tree and resolves with the result once nothing is left', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const proc = shell.spawn({ command: `echo up; sleep ${duration}` })
    await new Promise<void>((resolve) => proc.onOutput(() => resolve()))
    const result = await proc.kill('user pressed stop')
    expect(result).toMatchObject({ aborted: true, signal: 'SIGTERM' })
    expect(psMatching(`sleep ${duration}`)).toEqual([])
    expect(await proc.done).toBe(result)
  })

  test('kill() twice, or with an abort at the same time, gives the one result', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const controller = new AbortController()
    const proc = shell.spawn({ command: `sleep ${duration}`, signal: controller.signal })
    const [first, second] = await Promise.all([proc.kill(), proc.kill(), controller.abort()])
    expect(first).toBe(second)
    expect(first).toMatchObject({ aborted: true })
  })

  test('kill() after the command finished changes nothing', async () => {
    const shell = await testShell()
    const proc = shell.spawn({ command: 'exit 4' })
    const result = await proc.done
    expect(await proc.kill()).toMatchObject({ exitCode: 4, aborted: false })
    expect(result.exitCode).toBe(4)
  })
})

describe('what a finished command leaves behind', () => {
  test('a background child in its group is ended when the command exits', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const result = await shell.run({ command: `sleep ${duration} & echo started` })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, aborted: false })
    expect(result.stdout.text).toBe('started\n')
  })

  test('a setsid child still holding the output is ended, and the call returns promptly', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const started = performance.now()
    const result = await shell.run({ command: `setsid sleep ${duration} & echo started`, graceMs: 300 })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false })
    expect(performance.now() - started).toBeLessThan(3_000)
  })

  // Each spelling leaves before the command exits (the pause), lets go of the pipes and, for some, clears its environment.
  const DETACHED: [string, (sleep: string) => string][] = [
    ['setsid', (sleep) => `setsid ${sleep} </dev/null >/dev/null 2>&1 &`],
    ['nohup + setsid', (sleep) => `nohup setsid ${sleep} </dev/null >/dev/null 2>&1 &`],
    ['a double fork', (sleep) => `( setsid sh -c '${sleep} & exit' </dev/null >/dev/null 2>&1 & )`],
    ['setsid with the environment cleared', (sleep) => `setsid env -i /bin/${sleep} </dev/null >/dev/null 2>&1 &`],
    ['setsid -f', (sleep) => `setsid -f ${sleep} </dev/null >/dev/null 2>&1`],
  ]

  test.skipIf(processLimitMechanism() !== 'cgroup').each(DETACHED)(
    "a daemon that fully detached before the exit (%s) is ended with the call: it cannot leave the call's cgroup",
    async (_name, spell) => {
      const shell = await testShell()
      const duration = sleeper()
      const result = await shell.run({ command: `${spell(`sleep ${duration}`)}\nsleep 0.3; echo started` })
      expect(result.exitCode).toBe(0)
      expect(result.stdout.text).toBe('started\n')
      // Ended before the result: nothing is left to look for afterwards.
      expect(psMatching(`sleep ${duration}`)).toEqual([])
    },
  )

  test('without a cgroup (processes: false) a fully detached daemon survives the call, as with nohup', async () => {
    const shell = await testShell()
    const duration = sleeper()
    const result = await shell.run({ command: `setsid sleep ${duration} </dev/null >/dev/null 2>&1 & sleep 0.3; echo started`, limits: { processes: false } })
    expect(result.exitCode).toBe(0)
    const left = psMatching(`sleep ${duration}`)
    expect(left).toHaveLength(1)
    killAll(left)
    await eventually(() => expect(psMatching(`sleep ${duration}`)).toEqual([]))
  })

  test('many short commands leave no zombie and no process behind', async () => {
    const shell = await testShell()
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => shell.run({ command: `exit ${i % 3}` })))
    expect(results.map((result) => result.exitCode)).toEqual(Array.from({ length: 30 }, (_, i) => i % 3))
    expect(ourZombies()).toEqual([])
  })
})

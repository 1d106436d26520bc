import { randomBytes } from 'node:crypto'
import { cleanup, countLoopTurns, psMatching } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { parseHookOutput, runHook } from '../src/index.js'

afterEach(cleanup)

const tagged = (line: string) => {
  const tag = `dshkit-hook-limits-${randomBytes(6).toString('hex')}`
  return { tag, command: `: ${tag}; ${line}` }
}

test('a hook that fork-bombs hits the process limit: its tree is killed and the hook is an error saying so', async () => {
  const { tag, command } = tagged(':(){ :|:& };:; sleep 100')
  // The host's event loop keeps turning while the bomb runs.
  const turns = countLoopTurns()
  const result = await runHook({ command, shell: ['bash', '-c'], payload: {}, timeoutMs: 60_000, graceMs: 200, limits: { processes: 48 } })
  expect(result).toMatchObject({ limit: 'processes', timedOut: false })
  expect(turns.stop()).toBeGreaterThan(2)
  expect(parseHookOutput(result)).toEqual({ kind: 'error', reason: 'limit reached: processes; it was killed with everything it started' })
  expect(psMatching(tag)).toEqual([])
})

test('a hook that allocates 20 GB hits the memory limit', async () => {
  const { tag, command } = tagged(`python3 -c 'b = bytearray(20 * 2**30)'`)
  const result = await runHook({ command, payload: {}, limits: { memoryBytes: 2 ** 30 } })
  expect(result.limit).toBe('memory')
  expect(psMatching(tag)).toEqual([])
})

test('the default limits apply to every hook; a bad limit is an error before anything runs', async () => {
  const defaults = await runHook({ command: 'ulimit -n; ulimit -v', payload: {} })
  expect(defaults.stdout).toBe(`4096\n${8 * 1024 * 1024}\n`)
  const bad = await runHook({ command: 'echo ran', payload: {}, limits: { openFiles: 1.5 } })
  expect(bad).toMatchObject({ stdout: '', error: 'limits.openFiles must be a positive whole number or false (no limit); got 1.5' })
})

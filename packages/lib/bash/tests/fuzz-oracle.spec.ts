import { spawnSync } from 'node:child_process'
import { beforeAll, expect, test } from 'vitest'
import { loadCommandParser } from '../src/index.js'
import { fuzzSeed, line, random } from './fuzz/grammar.js'
import { isDenied, judge, listedRun, traced } from './fuzz/oracle.js'

beforeAll(() => loadCommandParser())

const LINES = Number(process.env.DSHKIT_FUZZ_LINES ?? 2000)
const SEED = fuzzSeed()
const PARALLEL = 4

test('the execve tracer is installed (Debian: apt-get install strace)', () => {
  expect(spawnSync('strace', ['-V']).status, 'strace is needed for the fuzz oracle').toBe(0)
})

test(`fuzz oracle: whenever the judge allows a line, bash runs only programs it listed, none of them rm (${LINES} lines, DSHKIT_FUZZ_SEED=${SEED})`, async () => {
  console.log(`fuzz oracle: DSHKIT_FUZZ_SEED=${SEED} DSHKIT_FUZZ_LINES=${LINES}`)
  const rng = random(SEED)
  const lines = Array.from({ length: LINES }, () => line(rng))
  const allowed = lines.map((text) => ({ text, ...judge(text) })).filter((entry) => entry.allowed)
  const failures: string[] = []
  let ranSomething = 0
  for (let at = 0; at < allowed.length; at += PARALLEL) {
    await Promise.all(
      allowed.slice(at, at + PARALLEL).map(async ({ text, listed }) => {
        const { executed, victimLeft } = await traced(text)
        if (executed.length) ranSomething++
        const unlisted = executed.filter((run) => !listedRun(run, listed) || isDenied(run))
        if (unlisted.length || !victimLeft)
          failures.push(
            `${JSON.stringify(text)} ran ${unlisted.map((run) => `${run.file} (argv[0] ${run.argv0})`).join(', ') || 'something that deleted victim'}; listed: ${[...listed].join(' ')}`,
          )
      }),
    )
  }
  expect(failures, `seed ${SEED}: lines the judge allowed ran what it did not list`).toEqual([])
  // Not vacuous: a good share of the lines is allowed, and most of those run programs.
  expect(allowed.length).toBeGreaterThan(LINES / 10)
  expect(ranSomething).toBeGreaterThan(allowed.length / 4)
}, 240_000)

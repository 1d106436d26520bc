import fc from 'fast-check'
import picomatch from 'picomatch'
import { expect, test } from 'vitest'
import type { Rule } from '../src/index.js'
import { setup } from './helpers.js'
import { propertySeed } from '@dshkit/testing'

const tools = ['fs_write', 'fs_read', 'shell'] as const
const paths = ['src/a.ts', 'src/b.lock', 'pkg/c.lock', 'README.md'] as const
const rule: fc.Arbitrary<Rule> = fc.record(
  {
    tool: fc.constantFrom('*', 'fs_*', 'fs_write', 'shell', 's*', '{fs_read,shell}'),
    when: fc.option(fc.constantFrom({ path: '**' }, { path: '**/*.lock' }, { path: 'src/**' }, { path: '*.md' }, { mode: '*' }), { nil: undefined }),
    decision: fc.constantFrom('allow', 'deny', 'ask'),
  },
  { requiredKeys: ['tool', 'decision'] },
) as fc.Arbitrary<Rule>

// The oracle matches with picomatch directly; the values here have one spelling each.
const matches = (r: Rule, name: string, path: string) =>
  picomatch(r.tool, { dot: true })(name) && Object.entries(r.when ?? {}).every(([key, glob]) => key === 'path' && picomatch(glob, { dot: true })(path))

const seed = propertySeed()

test('deny if any deny rule matches, else ask if any ask rule matches, else allow — in any order', async () => {
  console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  await fc.assert(
    fc.asyncProperty(fc.array(rule, { maxLength: 8 }), fc.constantFrom(...tools), fc.constantFrom(...paths), async (rules, name, path) => {
      const { run, asked, ran } = await setup({ rules }, async () => ({ kind: 'deny', reason: 'asked' }))
      const result = await run(name, { path })
      const hit = (decision: Rule['decision']) => rules.findIndex((r) => r.decision === decision && matches(r, name, path))
      const deny = hit('deny')
      if (deny >= 0) {
        expect(result).toMatchObject({ error: { code: 'DENIED', source: 'permission-policy' } })
        expect(result.isError && result.error.message).toMatch(new RegExp(`^rule #${deny + 1} \\(deny `))
        expect(asked).toHaveLength(0)
      } else if (hit('ask') >= 0) {
        expect(asked).toHaveLength(1)
        expect(asked[0].reason).toMatch(new RegExp(`^rule #${hit('ask') + 1} \\(ask `))
        expect(result).toMatchObject({ error: { code: 'DENIED', source: 'approval' } })
      } else {
        expect(result).toMatchObject({ isError: false })
        expect(asked).toHaveLength(0)
      }
      expect(ran).toEqual(result.isError ? [] : [name])
    }),
    { numRuns: 200, seed, verbose: 1 },
  )
})

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import fc from 'fast-check'
import DshBase from '@dshkit/dsh-base'
import type {} from '@dshkit/agent-loop'
import type {} from '@dshkit/user-approval'
import { cleanup, plug, tempDir, propertySeed } from '@dshkit/testing'
import { afterAll, expect, it } from 'vitest'
import type { Judgement } from '../src/judgement.js'
import { compare, recordedCalls } from '../src/replay-diff.js'

afterAll(cleanup)

const TOOLS = ['fs_read', 'fs_write', 'fs_list', 'fs_edit'] as const
const PATHS = ['README.md', 'src/a.ts', 'src/deep/b.md', '.env', 'notes/todo.md', '../outside.txt', 'package.json']

const rule = fc
  .record({
    tool: fc.constantFrom('fs_*', 'fs_read', 'fs_write', 'fs_list', '*', 'fs_edit'),
    when: fc.option(fc.record({ path: fc.constantFrom('**/*.md', 'src/**', '**', '*.json', 'README.md', '.env') }), { nil: undefined }),
    decision: fc.constantFrom('allow', 'deny', 'ask'),
  })
  .map(({ when, ...rest }) => (when ? { ...rest, when } : rest))

const policy = fc.record({
  rules: fc.array(rule, { maxLength: 5 }),
  default: fc.constantFrom('allow', 'ask', 'deny'),
  trace: fc.boolean(),
})

const call = fc.record({ tool: fc.constantFrom(...TOOLS), path: fc.constantFrom(...PATHS) })
const argumentsOf = (tool: string, path: string) =>
  tool === 'fs_write' ? { path, content: 'x' } : tool === 'fs_edit' ? { path, old: 'a', new: 'b' } : { path }

/** The approver answers by the call's position: every second ask is approved, so both outcomes are recorded. */
const approves = (callId: string) => Number(callId.slice(1)) % 2 === 0

async function bootPolicy(root: string, config: { rules: object[]; default: string; trace: boolean }) {
  const ctx = new Context()
  await plug(
    ctx,
    DshBase,
    {
      tools: { trace: config.trace },
      'fs-sandbox': { roots: [root] },
      'shell-sandbox': false,
      'user-approval': { responder: 'headless' },
      'permission-policy': { rules: config.rules, default: config.default },
    },
    { timeoutMs: 20_000 },
  )
  ctx.approval.respond((ask) => (approves(ask.callId) ? { kind: 'allow' } : { kind: 'deny', reason: 'the test approver said no' }))
  return ctx
}

it('explain agrees with a real run, and replaying a log under its own config changes nothing', { timeout: 120_000 }, async () => {
  const seed = propertySeed('DSHKIT_PROPERTY_SEED')
  console.log(`replay property seed: ${seed} (rerun with DSHKIT_PROPERTY_SEED=${seed})`)
  let runs = 0
  await fc.assert(
    fc.asyncProperty(policy, fc.array(call, { minLength: 1, maxLength: 6 }), async (config, picked) => {
      const root = await tempDir('dshkit-prop-')
      await mkdir(join(root, 'src'))
      await writeFile(join(root, 'README.md'), 'a readme\n')
      await writeFile(join(root, '.env'), 'TOKEN=a\n')
      const ctx = await bootPolicy(root, config)
      try {
        const calls = picked.map(({ tool, path }, i) => ({ callId: `c${i}`, name: tool, arguments: argumentsOf(tool, path) }))
        const explained = new Map<string, Judgement>()
        for (const c of calls) explained.set(c.callId, (await ctx.tools.explain(c)) as unknown as Judgement)
        // One call at a time, as a model's sequential turn would: the log holds each call and its result.
        const results = []
        for (const c of calls) results.push(...(await ctx.loop.executeToolCalls([c])).results)
        for (const [i, c] of calls.entries()) {
          const { decision } = explained.get(c.callId)!
          const result = results[i]
          const where = `${c.name} ${JSON.stringify(c.arguments)} under ${JSON.stringify(config)}`
          if (decision.kind === 'deny') {
            expect(result.isError, where).toBe(true)
            expect(result.isError && [result.error.code, result.error.source], where).toEqual([decision.code, decision.source])
          } else if (decision.kind === 'ask') {
            // Asked, and the approver's answer decided.
            if (approves(c.callId)) expect(result.isError && result.error.code, where).not.toBe('DENIED')
            else expect(result.isError && [result.error.code, result.error.source], where).toEqual(['DENIED', 'approval'])
          } else {
            expect(result.isError && result.error.code, where).not.toBe('DENIED')
            expect(result.isError && result.error.code, where).not.toBe('INVALID_ARGS')
          }
        }
        const recorded = recordedCalls(ctx.session.events())
        expect(recorded.map((r) => r.call.callId)).toEqual(calls.map((c) => c.callId))
        const changed = recorded.map((r) => compare(r, explained.get(r.call.callId)!)).filter((r) => r.changed)
        expect(changed, JSON.stringify(config)).toEqual([])
        runs++
      } finally {
        for (const fiber of [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers])) await fiber.dispose()
      }
    }),
    { seed, numRuns: 12 },
  )
  expect(runs).toBeGreaterThanOrEqual(12)
})

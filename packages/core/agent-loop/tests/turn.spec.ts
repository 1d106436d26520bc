import type { Context } from 'cordis'
import { expect, test } from 'vitest'
import type { LifecycleAnswer, LifecycleEvent, TurnRound } from '../src/index.js'
import { setup } from './helpers.js'

/** A policy plugin answering the harness's moments with `answer(event)`; records every event it saw. */
async function withHooks(answer: (event: LifecycleEvent) => LifecycleAnswer | undefined) {
  const { ctx } = await setup()
  const seen: LifecycleEvent[] = []
  await ctx.plugin({
    name: 'test-hooks',
    apply: (ctx: Context) => {
      ctx.on('loop/lifecycle', async (event, reply) => {
        seen.push(event)
        const said = answer(event)
        if (said) reply(said)
      })
    },
  })
  const rounds: TurnRound[] = []
  const run = async (round: TurnRound) => {
    rounds.push(round)
    return `answer ${round.round}`
  }
  return { ctx, seen, rounds, run }
}

const by = 'test-hooks'
const text = (t: string) => ({ source: by, content: [{ type: 'text' as const, text: t }] })

test('a turn: UserPromptSubmit (with the prompt id), one run with its contexts, then Stop', async () => {
  const { ctx, seen, rounds, run } = await withHooks((e) => (e.name === 'UserPromptSubmit' ? { contexts: [text('branch: main')] } : undefined))
  const outcome = await ctx.loop.turn({ prompt: 'fix it', promptId: 'p1', run })
  expect(outcome).toEqual({ outputs: ['answer 0'] })
  expect(rounds).toEqual([{ round: 0, text: 'fix it', contexts: [text('branch: main')] }])
  expect(seen).toEqual([
    { name: 'UserPromptSubmit', prompt: 'fix it', promptId: 'p1' },
    { name: 'Stop', stopHookActive: false },
  ])
})

test('a Stop hook that blocks sends the turn back with its reason, stop_hook_active set; then it ends', async () => {
  let blocks = 1
  const { ctx, seen, rounds, run } = await withHooks((e) => (e.name === 'Stop' && blocks-- > 0 ? { block: { reason: 'run the tests first', by } } : undefined))
  const outcome = await ctx.loop.turn({ prompt: 'fix it', run })
  expect(outcome).toEqual({ outputs: ['answer 0', 'answer 1'] })
  expect(rounds.map((r) => [r.round, r.text])).toEqual([
    [0, 'fix it'],
    [1, 'run the tests first'],
  ])
  expect(seen.filter((e) => e.name === 'Stop')).toEqual([
    { name: 'Stop', stopHookActive: false },
    { name: 'Stop', stopHookActive: true },
  ])
})

test('a Stop hook that always blocks cannot loop forever: maxContinuations rounds, then unheeded', async () => {
  const { ctx, rounds, run } = await withHooks((e) => (e.name === 'Stop' ? { block: { reason: 'again', by } } : undefined))
  const outcome = await ctx.loop.turn({ prompt: 'p', run, maxContinuations: 2 })
  expect(rounds).toHaveLength(3)
  expect(outcome.unheeded).toEqual({ reason: 'again', by })
  await expect(ctx.loop.turn({ prompt: 'p', run, maxContinuations: -1 })).rejects.toThrow(/maxContinuations must be a whole number/)
})

test('a refused prompt runs nothing; a stop at the prompt, in a round’s output or at Stop ends the turn', async () => {
  const refusing = await withHooks((e) => (e.name === 'UserPromptSubmit' ? { block: { reason: 'no secrets in prompts', by } } : undefined))
  expect(await refusing.ctx.loop.turn({ prompt: 'key=abc', run: refusing.run })).toEqual({ outputs: [], refused: { reason: 'no secrets in prompts', by } })
  expect(refusing.rounds).toEqual([])

  const stop = { reason: 'halt', by }
  const atPrompt = await withHooks((e) => (e.name === 'UserPromptSubmit' ? { stop } : undefined))
  expect(await atPrompt.ctx.loop.turn({ prompt: 'p', run: atPrompt.run })).toEqual({ outputs: [], stop })

  const inOutput = await withHooks((e) => (e.name === 'Stop' ? { block: { reason: 'never asked', by } } : undefined))
  const outcome = await inOutput.ctx.loop.turn({ prompt: 'p', run: inOutput.run, stopOf: (output) => (output === 'answer 0' ? stop : undefined) })
  expect(outcome).toEqual({ outputs: ['answer 0'], stop })
  expect(inOutput.seen.map((e) => e.name)).toEqual(['UserPromptSubmit'])

  const atStop = await withHooks((e) => (e.name === 'Stop' ? { stop, block: { reason: 'ignored', by } } : undefined))
  expect(await atStop.ctx.loop.turn({ prompt: 'p', run: atStop.run })).toEqual({ outputs: ['answer 0'], stop })
})

test('a turn that cannot run is refused before any hook fires: nothing is submitted', async () => {
  const { ctx, seen } = await withHooks(() => undefined)
  for (const input of [{ prompt: 'p' }, { prompt: 'p', run: 'no' }, { prompt: 'p', run: async () => 1, stopOf: {} }, null]) {
    await expect(ctx.loop.turn(input as never)).rejects.toThrow(/^turn: (run|stopOf) must be a function/)
  }
  expect(seen).toEqual([])
})

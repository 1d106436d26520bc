import { Context } from 'cordis'
import Session from '@dshkit/session'
import type { ToolDefinition, ToolExecutionResult } from '@dshkit/tools'
import { z } from 'zod'
import { expect, test } from 'vitest'
import AgentLoop from '../src/index.js'
import { logOf } from './helpers.js'

/** A third-party `tools` service whose execute breaks its promise for some calls. */
async function withBrokenTools(execute: (input: { callId: string; name: string }) => Promise<unknown>) {
  const ctx = new Context()
  const safe: ToolDefinition = { name: 'safe', description: '', parameters: z.any(), isConcurrencySafe: () => true, execute: () => 'ok' }
  const definitions = new Map<string, ToolDefinition>([
    ['safe', safe],
    ['unsafe', { ...safe, name: 'unsafe', isConcurrencySafe: undefined }],
  ])
  await ctx.plugin({ name: 'third-party-tools', apply: (ctx: Context) => void ctx.provide('tools', { definitions, execute }) })
  await ctx.plugin(Session)
  await ctx.plugin(AgentLoop)
  return ctx
}

const ok = (text: string): ToolExecutionResult => ({ isError: false, value: text, content: [{ type: 'text', text }] })

test.each(['unsafe', 'safe'])('a rejecting or broken execute gives that %s call a failed result; later calls still run and are recorded', async (name) => {
  const ran: string[] = []
  const ctx = await withBrokenTools(async ({ callId }) => {
    ran.push(callId)
    if (callId === 'b') throw Object.create(null) // rejects with something that is not even an Error
    if (callId === 'c') return 'not a result'
    return ok(callId)
  })
  const calls = ['a', 'b', 'c', 'd'].map((callId) => ({ callId, name, arguments: {} }))
  const { results } = await ctx.loop.executeToolCalls(calls)
  expect(ran.sort()).toEqual(['a', 'b', 'c', 'd'])
  expect(results.map((r) => r.isError)).toEqual([false, true, true, false])
  expect(results[1]).toMatchObject({
    error: { code: 'TOOL_OUTCOME_UNKNOWN', source: 'agent-loop', message: expect.stringMatching(/ctx\.tools\.execute rejected/) },
  })
  expect(results[2]).toMatchObject({ error: { code: 'TOOL_OUTCOME_UNKNOWN', message: expect.stringMatching(/not a tool result/) } })
  const log = logOf(ctx)
  expect(log.filter((e) => e.startsWith('result:'))).toEqual(['result:a', 'result:b', 'result:c', 'result:d'])
  expect(log.filter((e) => e.startsWith('call:'))).toEqual(['call:a', 'call:b', 'call:c', 'call:d'])
  const failedResult = ctx.session.events().find((e) => e.type === 'tool/result' && e.callId === 'b')
  expect(failedResult).toMatchObject({ isError: true, error: { code: 'TOOL_OUTCOME_UNKNOWN' } })
})

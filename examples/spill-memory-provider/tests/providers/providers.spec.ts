import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { z } from 'zod'
import { afterEach, expect, test } from 'vitest'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup, eventually, tempDir } from '@dshkit/testing'
import UserApproval from '@dshkit/user-approval'
import type {} from '@dshkit/session'
import ApproveListed from './approve-listed.js'
import QueueApprovalPlugin, { type QueueApproval } from './queue-approval.js'
import JsonFileSession from './json-file-session.js'

afterEach(cleanup)

/** Tools whose every call asks for approval, as a permission rule with decision: ask would. */
async function askingTools() {
  const tools = ['deploy', 'lint'].map((name) => defineTool({ name, description: name, parameters: z.object({}), execute: () => `${name} done` }))
  const asks = {
    name: 'asks',
    apply: (ctx: Context) => {
      ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'every call is reviewed' }))
    },
  }
  const { ctx, call } = await boot({ tools, plugins: [asks] })
  const run = (name: string, signal?: AbortSignal) => call(name, {}, { signal })
  return { ctx, run }
}

test('a programmatic responder answers before the configured one, and goes away with its plugin', async () => {
  const { ctx, run } = await askingTools()
  await ctx.plugin(UserApproval, { responder: 'headless' })
  const fiber = await ctx.plugin(ApproveListed, { tools: ['lint'] })
  expect(await run('lint')).toMatchObject({ isError: false, value: 'lint done' })
  expect(await run('deploy')).toMatchObject({ isError: true, error: { code: 'DENIED', message: expect.stringContaining('no one can approve here') } })
  await fiber.dispose()
  expect(await run('lint')).toMatchObject({ isError: true, error: { code: 'DENIED' } })
})

test('a replacement approval service: asks wait until answered, a cancelled call leaves the queue', async () => {
  const { ctx, run } = await askingTools()
  await ctx.plugin(QueueApprovalPlugin)
  const approval = ctx.get('approval') as unknown as QueueApproval
  const running = run('deploy')
  await eventually(() => expect(approval.pending()).toEqual([{ id: 1, tool: 'deploy', reason: 'every call is reviewed' }]))
  approval.answer(1, { kind: 'allow' })
  expect(await running).toMatchObject({ isError: false, value: 'deploy done' })

  const controller = new AbortController()
  const cancelled = run('deploy', controller.signal)
  await eventually(() => expect(approval.pending()).toHaveLength(1))
  controller.abort()
  expect(await cancelled).toMatchObject({ isError: true, error: { code: 'ABORTED_BEFORE_DISPATCH' } })
  expect(approval.pending()).toEqual([])
})

test('disposing the approval service denies what is still waiting', async () => {
  const { ctx, run } = await askingTools()
  const fiber = await ctx.plugin(QueueApprovalPlugin)
  const approval = ctx.get('approval') as unknown as QueueApproval
  const running = run('lint')
  await eventually(() => expect(approval.pending()).toHaveLength(1))
  await fiber.dispose()
  expect(await running).toMatchObject({ isError: true, error: { code: 'DENIED', message: expect.stringContaining('the approval UI closed') } })
})

test('a session store: events survive a restart, and a call left open is closed as TOOL_OUTCOME_UNKNOWN', async () => {
  const dir = await tempDir('json-session-')
  const path = join(dir, 'session.json')
  const first = new Context()
  const fiber = await first.plugin(JsonFileSession, { path })
  await first.session.append({ type: 'tool/call', callId: 'a', name: 'lint', arguments: {} })
  await first.session.append({ type: 'tool/result', callId: 'a', isError: false, content: [{ type: 'text', text: 'ok' }] })
  await first.session.append({ type: 'tool/call', callId: 'b', name: 'deploy', arguments: {} })
  await fiber.dispose() // as if the process died while deploy ran
  expect(JSON.parse(await readFile(path, 'utf8'))).toHaveLength(3)

  const second = new Context()
  await second.plugin(JsonFileSession, { path })
  const events = second.session.events()
  expect(events.map((e) => `${e.type} ${'callId' in e ? e.callId : ''}`)).toEqual(['tool/call a', 'tool/result a', 'tool/call b', 'tool/result b'])
  expect(events[3]).toMatchObject({ isError: true, error: { code: 'TOOL_OUTCOME_UNKNOWN' } })
  expect(second.session.pendingCalls()).toEqual([])
})

test('a session store plugin with a bad config is refused', async () => {
  await expect(new Context().plugin(JsonFileSession, { path: '' })).rejects.toThrow(/path must name the JSON file/)
})

import { Context } from 'cordis'
import { expect, test } from 'vitest'
import { z } from 'zod'
import Tools, { defineTool } from '../src/index.js'

test('smoke', async () => {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const fiber = ctx.plugin({
    name: 'echo-plugin',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register(defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text }))
      ctx.on('tools/pre-execute', async (exec, next) => exec.arguments && (exec.arguments as any).text === 'no' ? { kind: 'deny', reason: 'nope' } : next())
    },
  })
  await fiber
  const ok = await ctx.tools.execute({ callId: '1', name: 'echo', arguments: { text: 'hi' } })
  expect(ok).toMatchObject({ isError: false, value: 'hi', content: [{ type: 'text', text: 'hi' }] })
  const no = await ctx.tools.execute({ callId: '2', name: 'echo', arguments: { text: 'no' } })
  expect(no).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'echo-plugin' } })
  console.log(no, ctx.tools.schemas())
  await fiber.dispose()
  expect(ctx.tools.get('echo')).toBeUndefined()
  expect(await ctx.tools.execute({ callId: '3', name: 'echo', arguments: { text: 'no' } })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
})

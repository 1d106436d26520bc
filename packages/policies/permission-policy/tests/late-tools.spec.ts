import type { Context } from 'cordis'
import { defineTool, type ToolDefinition } from '@dshkit/tools'
import { boot, cleanup } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import PermissionPolicy, { type ConfigInput } from '../src/index.js'

afterEach(cleanup)

const tool = (name: string, parameters: z.ZodType = z.object({ path: z.string() })): ToolDefinition =>
  defineTool({ name, description: name, parameters, execute: () => 'ran' }) as ToolDefinition

/** A server's tools registering after the policy started, one by one in one go, as mcp-client does when it connects. */
const server = (tools: ToolDefinition[]) => ({
  name: 'late-server',
  inject: ['tools'],
  apply: (ctx: Context) => {
    for (const def of tools) ctx.tools.register(def)
  },
})

async function started(config: ConfigInput, approve?: () => Promise<unknown>) {
  const booted = await boot({ tools: [tool('fs_write', z.object({ path: z.string(), content: z.string() }))] })
  if (approve) booted.ctx.provide('approval', { request: approve as never })
  await booted.plug(PermissionPolicy, config)
  return booted
}

test('an MCP name whose server arrives without it fails closed: the server’s calls are denied, logged once with a did-you-mean', async () => {
  const { plug, call, logs } = await started({ rules: [{ tool: 'mcp__srv__delete_file', decision: 'deny', reason: 'never delete' }] })
  await plug(server([tool('mcp__srv__delete_files'), tool('mcp__srv__read')]))
  for (const name of ['mcp__srv__delete_files', 'mcp__srv__read']) {
    const result = await call(name, { path: 'x' })
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'permission-policy' } })
    expect(result.isError && result.error.message).toMatch(
      /^rule #1 \(deny mcp__srv__delete_file\): no tool "mcp__srv__delete_file" is registered; did you mean "mcp__srv__delete_files"\?; until it is fixed, calls it was meant for are denied$/,
    )
  }
  // Tools of other servers and built-in ones are not what the rule was meant for.
  expect(await call('fs_write', { path: 'x', content: '' })).toMatchObject({ isError: false })
  const errors = logs.filter((line) => line.type === 'error' && line.name === 'permission-policy')
  expect(errors).toHaveLength(1)
  expect(errors[0].text).toContain('calls it was meant for fail closed until it is fixed')
})

test('an argument the arriving tool does not declare fails closed too; an allow rule then asks', async () => {
  const asked: unknown[] = []
  const { plug, call } = await started(
    {
      rules: [
        { tool: 'mcp__srv__write', when: { pth: '**/.env' }, decision: 'deny' },
        { tool: 'mcp__docs__search', when: { qeury: '*' }, decision: 'allow' },
      ],
    },
    async () => (asked.push(1), { kind: 'deny', reason: 'no' }),
  )
  await plug(server([tool('mcp__srv__write'), tool('mcp__docs__search', z.object({ query: z.string() }))]))
  const write = await call('mcp__srv__write', { path: 'a' })
  expect(write.isError && write.error.message).toMatch(
    /"pth", which mcp__srv__write does not declare; did you mean "path"\? \(it takes path\); until it is fixed, calls it was meant for are denied/,
  )
  const search = await call('mcp__docs__search', { query: 'q' })
  expect(search).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'approval' } })
  expect(asked).toHaveLength(1)
})

test('a rule its server’s tools satisfy judges as written; a later fix lifts a failed rule', async () => {
  const { plug, call, ctx } = await started({ rules: [{ tool: 'mcp__srv__write', when: { path: '**/.env' }, decision: 'deny' }] })
  const fiber = await plug(server([tool('mcp__srv__writ')]))
  expect(await call('mcp__srv__writ', { path: 'a' })).toMatchObject({ error: { code: 'DENIED' } })
  await fiber.dispose()
  await plug(server([tool('mcp__srv__write')]))
  expect(await call('mcp__srv__write', { path: 'a' })).toMatchObject({ isError: false })
  expect(await call('mcp__srv__write', { path: 'x/.env' })).toMatchObject({
    error: { code: 'DENIED', message: 'rule #1 (deny mcp__srv__write when path="**/.env")' },
  })
  expect(ctx.tools.get('mcp__srv__write')).toBeDefined()
})

test('a pattern for a server waits for it; a built-in name registered after start was a start error, not a late tool', async () => {
  const { plug, call } = await started({ rules: [{ tool: 'mcp__srv__*', when: { path: '/etc/**' }, decision: 'deny' }] })
  await plug(server([tool('mcp__srv__read')]))
  expect(await call('mcp__srv__read', { path: '/etc/passwd' })).toMatchObject({ error: { code: 'DENIED' } })
  expect(await call('mcp__srv__read', { path: 'a' })).toMatchObject({ isError: false })
  const booted = await boot()
  await expect(booted.plug(PermissionPolicy, { rules: [{ tool: 'my_tool', decision: 'deny' }] })).rejects.toThrow(
    /rule #1 \(deny my_tool\): no tool "my_tool" is registered; registered: none/,
  )
})

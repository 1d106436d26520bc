import { afterEach, expect, test } from 'vitest'
import type { Context } from 'cordis'
import { z } from 'zod'
import { defineTool, type ToolDefinition } from '@dshkit/tools'
import { cleanup, eventually, plug } from '@dshkit/testing'
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js'
import { MAX_LOG_CHARS, MAX_LOG_LINES_PER_SECOND } from '../src/log.js'
import { httpClient, serveHttp } from './helpers.js'

afterEach(cleanup)

/** dsh-base + mcp-server with a `noisy` tool that logs `count` lines of `text` at `level`. */
async function serveNoisy() {
  const served = await serveHttp()
  await plug(served.ctx, {
    name: 'noisy',
    inject: ['tools'],
    apply: (ctx: Context) => {
      const log = ctx.logger('noisy')
      const noisy = defineTool({
        name: 'noisy',
        description: 'Logs.',
        parameters: z.object({ text: z.string(), count: z.number().int(), level: z.enum(['debug', 'info', 'warn', 'error']) }),
        execute: async ({ text, count, level }) => {
          for (let i = 0; i < count; i++) log[level](text)
          return 'logged'
        },
      })
      ctx.tools.register(noisy as ToolDefinition)
    },
  })
  return served
}

async function listening(endpoint: Awaited<ReturnType<typeof serveHttp>>['endpoint']) {
  const { client } = await httpClient(endpoint)
  const lines: LoggingMessageNotification['params'][] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void lines.push(n.params))
  return { client, lines }
}

test("a call's log lines go to its own client only, at or above the level that client set (info until it sets one)", async () => {
  const { endpoint, ctx } = await serveNoisy()
  const a = await listening(endpoint)
  const b = await listening(endpoint)
  await a.client.setLoggingLevel('debug')
  for (const level of ['debug', 'info', 'warn', 'error'] as const)
    await a.client.callTool({ name: 'noisy', arguments: { text: `a-${level}`, count: 1, level } })
  expect(a.lines.filter((l) => l.logger === 'noisy').map((l) => [l.level, l.data])).toEqual([
    ['debug', 'a-debug'],
    ['info', 'a-info'],
    ['warning', 'a-warn'],
    ['error', 'a-error'],
  ])
  await b.client.callTool({ name: 'noisy', arguments: { text: 'b-debug', count: 1, level: 'debug' } })
  await b.client.callTool({ name: 'noisy', arguments: { text: 'b-info', count: 1, level: 'info' } })
  expect(b.lines.filter((l) => l.logger === 'noisy').map((l) => l.data)).toEqual(['b-info'])
  expect(a.lines.some((l) => String(l.data).startsWith('b-'))).toBe(false)
  // A line logged outside any call reaches every client whose level admits it.
  ctx.logger('elsewhere').debug('quiet line')
  ctx.logger('elsewhere').warn('loud line')
  await eventually(() => expect(b.lines.map((l) => l.data)).toContain('loud line'))
  await eventually(() => expect(a.lines.map((l) => l.data)).toEqual(expect.arrayContaining(['quiet line', 'loud line'])))
  expect(b.lines.map((l) => l.data)).not.toContain('quiet line')
})

test('log lines are escaped, cut at MAX_LOG_CHARS, and at most MAX_LOG_LINES_PER_SECOND reach a client; the rest are reported', async () => {
  const { endpoint } = await serveNoisy()
  const { client, lines } = await listening(endpoint)
  const hostile = '\x1b[2J\x1b]0;owned\x07line one\nforged line\u202etxt\r'
  await client.callTool({ name: 'noisy', arguments: { text: hostile, count: 1, level: 'info' } })
  const [escaped] = lines.filter((l) => l.logger === 'noisy').map((l) => String(l.data))
  expect(escaped).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/)
  expect(escaped).toContain('\\x1b[2J')
  expect(escaped).toContain('line one\\x0aforged line\\u202etxt')
  lines.length = 0
  await client.callTool({ name: 'noisy', arguments: { text: 'x'.repeat(1_000_000), count: 1, level: 'info' } })
  const [long] = lines.map((l) => String(l.data))
  expect(long.length).toBeLessThan(MAX_LOG_CHARS + 100)
  expect(long).toMatch(/^x{2000}… \(\d+ more characters\)$/)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  lines.length = 0
  await client.callTool({ name: 'noisy', arguments: { text: 'flood', count: 5 * MAX_LOG_LINES_PER_SECOND, level: 'info' } })
  expect(lines.filter((l) => l.data === 'flood').length).toBe(MAX_LOG_LINES_PER_SECOND)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  await client.callTool({ name: 'noisy', arguments: { text: 'after', count: 1, level: 'info' } })
  expect(lines.map((l) => l.data)).toEqual(
    expect.arrayContaining([`${4 * MAX_LOG_LINES_PER_SECOND} log lines dropped (over ${MAX_LOG_LINES_PER_SECOND} a second)`, 'after']),
  )
})

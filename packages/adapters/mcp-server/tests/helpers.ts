import { Context } from 'cordis'
import { z } from 'zod'
import DshBase from '@dshkit/dsh-base'
import { defineTool, type ToolDefinition } from '@dshkit/tools'
import { onCleanup, plug, tempDir } from '@dshkit/testing'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import McpServer, { type ConfigInput, type HttpEndpoint } from '../src/index.js'

/** What the test tools saw: aborted calls by their `id` argument. */
export interface Seen {
  aborted: Set<string>
  started: Set<string>
}

/** Tools a test drives: echo, one that waits until aborted, one with a large output, one that needs a yes. */
export function testTools(seen: Seen) {
  return [
    defineTool({
      name: 'echo',
      description: 'Echoes text.',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ text }) => text,
    }),
    defineTool({
      name: 'wait_for_abort',
      description: 'Waits until the call is aborted.',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }, run) =>
        new Promise<string>((resolve) => {
          seen.started.add(id)
          run.signal.addEventListener('abort', () => (seen.aborted.add(id), resolve('aborted')), { once: true })
        }),
    }),
    defineTool({
      name: 'big',
      description: 'A large output.',
      parameters: z.object({ bytes: z.number().int() }),
      execute: ({ bytes }) => `${'line of output\n'.repeat(Math.ceil(bytes / 15))}THE END`,
    }),
    defineTool({
      name: 'deploy',
      description: 'Needs a yes.',
      parameters: z.object({ target: z.string() }),
      idempotent: true,
      execute: ({ target }) => `deployed ${target}`,
    }),
  ]
}

/** dsh-base (headless approval, no shell) with the test tools and mcp-server listening on loopback. */
export async function serveHttp(config: ConfigInput = {}, base: Record<string, unknown> = {}) {
  const root = await tempDir('dshkit-mcp-')
  const ctx = new Context()
  onCleanup(async () => {
    for (const fiber of [...ctx.registry.values()]
      .flatMap((r) => [...r.fibers])
      .filter((f) => f.parent.fiber === ctx.fiber)
      .reverse())
      await fiber.dispose()
  })
  const seen: Seen = { aborted: new Set(), started: new Set() }
  // Started before dsh-base, awaited after it: its permission policy checks its rules against these tools at start.
  const testToolsUp = plug(ctx, {
    name: 'test-tools',
    inject: ['tools'],
    apply: (ctx: Context) => {
      for (const def of testTools(seen)) ctx.tools.register(def as ToolDefinition)
    },
  })
  await plug(ctx, DshBase, {
    'fs-sandbox': { roots: [root] },
    'shell-sandbox': false,
    'user-approval': { responder: 'headless' },
    'permission-policy': {
      rules: [
        { tool: 'echo', when: { text: 'forbidden*' }, decision: 'deny', reason: 'no forbidden words' },
        { tool: 'deploy', decision: 'ask', reason: 'deploys need a yes' },
      ],
    },
    ...base,
  })
  await testToolsUp
  await plug(ctx, McpServer, config)
  const endpoint = await ctx.mcpServer.listen()
  onCleanup(() => endpoint.close())
  return { ctx, root, seen, endpoint }
}

export type Answer = ElicitResult | ((message: string) => ElicitResult | Promise<ElicitResult>)

/** The real SDK client over Streamable HTTP with the token; `answer` makes it support elicitation. */
export async function httpClient(endpoint: HttpEndpoint, options: { answer?: Answer; headers?: Record<string, string> } = {}) {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: options.answer ? { elicitation: { form: {} } } : {} })
  const questions: string[] = []
  if (options.answer) {
    const answer = options.answer
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = request.params.message
      questions.push(message)
      return typeof answer === 'function' ? answer(message) : answer
    })
  }
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: { authorization: `Bearer ${endpoint.token}`, ...options.headers } },
  })
  await client.connect(transport)
  onCleanup(() => client.close())
  return { client, questions }
}

/** The text of a CallToolResult. */
export function textOf(result: unknown): string {
  return (result as { content: { type: string; text?: string }[] }).content.map((block) => block.text ?? `[${block.type}]`).join('\n')
}

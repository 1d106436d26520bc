import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import { cleanup, plug } from '@dshkit/testing'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'cordis'
import type { ContentBlock } from '@dshkit/tools'
import { httpClient, serveHttp } from './helpers.js'

afterEach(cleanup)

const wav = Buffer.from('RIFF....WAVEfmt ').toString('base64')
const blocks: ContentBlock[] = [
  { type: 'text', text: 'see attached' },
  { type: 'audio', data: wav, mimeType: 'audio/wav' },
  { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# notes' } },
  { type: 'resource', resource: { uri: 'file:///a.bin', blob: Buffer.from([1, 2, 3]).toString('base64') } },
  { type: 'resource_link', uri: 'file:///big.log', name: 'big.log', mimeType: 'text/plain', description: 'the full log' },
]

test('audio, embedded resources and resource links go out as MCP content the real SDK client parses', async () => {
  const { ctx, endpoint } = await serveHttp()
  await plug(ctx, {
    name: 'media-tool',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register({ name: 'media', description: 'Mixed content.', parameters: z.object({}), execute: () => 'x', render: () => blocks }),
  })
  const { client } = await httpClient(endpoint)
  // callTool parses the response with the SDK's own schema: a block it does not know would throw here.
  const result = CallToolResultSchema.parse(await client.callTool({ name: 'media', arguments: {} }))
  expect(result.isError).toBe(false)
  expect(result.content).toEqual(blocks)
})

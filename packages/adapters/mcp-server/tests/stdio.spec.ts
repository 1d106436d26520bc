import { PassThrough } from 'node:stream'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually } from '@dshkit/testing'
import { serveHttp } from './helpers.js'

afterEach(cleanup)

/** serveStdio on in-memory streams: what a client writes, and every line the server answered. */
async function stdioPair(maxLineBytes?: number) {
  const { ctx } = await serveHttp()
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk) => (out += chunk))
  const connection = await ctx.mcpServer.serveStdio({ stdin, stdout, maxLineBytes })
  const lines = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  return { stdin, connection, lines }
}

const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

test('an over-long line is skipped with -32600, a CRLF line and a line split across chunks still parse', async () => {
  const { stdin, lines } = await stdioPair(1024)
  stdin.write(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${'x'.repeat(2000)}"}}\n`)
  stdin.write(init.slice(0, 20))
  stdin.write(init.slice(20) + '\r\n')
  stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n' + JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) + '\n')
  await eventually(() => expect(lines()).toHaveLength(3))
  const [skipped, initialized, pong] = lines()
  expect(skipped).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/over 1024 bytes was skipped/) } })
  expect(initialized.result.serverInfo.name).toBe('dshkit')
  expect(pong).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
})

test('a request with a bad shape keeps its id in the error; stdin ending closes the connection', async () => {
  const { stdin, connection, lines } = await stdioPair()
  stdin.write('{"jsonrpc":"2.0","id":7,"method":42}\n[1,2]\n\n')
  await eventually(() => expect(lines()).toHaveLength(2))
  expect(lines()[0]).toMatchObject({ id: 7, error: { code: -32600 } })
  expect(lines()[1]).toMatchObject({ id: null, error: { code: -32600 } })
  stdin.end()
  await connection.closed
})

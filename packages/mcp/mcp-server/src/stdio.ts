import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'

export interface StdioOptions {
  stdin?: Readable
  stdout?: Writable
}

/**
 * A stdio transport that (1) answers a line that is not JSON-RPC with a JSON-RPC error instead of
 * dropping it, (2) closes when stdin ends, and (3) when it owns `process.stdout`, sends everything
 * else written there (a plugin's stray `console.log`) to stderr, so stdout carries only protocol.
 */
export function stdioTransport(options: StdioOptions = {}) {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  let out: Writable = stdout
  let restore = () => {}
  if (stdout === process.stdout) {
    const write = process.stdout.write.bind(process.stdout)
    out = { write: (chunk: string) => write(chunk), once: (event: string, fn: () => void) => process.stdout.once(event, fn) } as unknown as Writable
    process.stdout.write = ((chunk: any, ...rest: any[]) => process.stderr.write(chunk, ...rest)) as typeof process.stdout.write
    restore = () => void (process.stdout.write = write as typeof process.stdout.write)
  }
  const transport = new StdioServerTransport(stdin, out)
  transport.onerror = (error) => {
    const bad = error instanceof SyntaxError ? [-32700, 'Parse error'] : error?.name === 'ZodError' || Array.isArray((error as { issues?: unknown }).issues) ? [-32600, 'Invalid Request'] : undefined
    if (!bad) return
    out.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: bad[0], message: `${bad[1]}: each line on stdin must be one JSON-RPC 2.0 message` } }) + '\n')
  }
  const end = () => void transport.close()
  stdin.once('end', end)
  stdin.once('close', end)
  const close = transport.close.bind(transport)
  transport.close = async () => {
    stdin.off('end', end)
    stdin.off('close', end)
    restore()
    await close()
  }
  return transport
}

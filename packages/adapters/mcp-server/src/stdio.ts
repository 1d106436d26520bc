import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { protoKeyedArguments } from './raw.js'

export interface StdioOptions {
  stdin?: Readable
  stdout?: Writable
  /** A longer line is answered with an error and skipped (default 16 MiB). */
  maxLineBytes?: number
}

/**
 * Newline-delimited JSON-RPC on stdin/stdout. Unlike the SDK's own stdio transport it answers a line
 * that is not JSON-RPC with a JSON-RPC error (and keeps serving, an over-long line included), closes
 * when stdin ends, hands over a call's raw arguments when they carry a `__proto__` key the SDK's schema
 * would drop, and, when it owns `process.stdout`, sends everything else written there to stderr.
 */
export class StdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Told a call's raw arguments when the SDK's schema would drop a `__proto__` key from them. */
  onRawArguments?: (id: string | number, args: Record<string, unknown>) => void
  private readonly stdin: Readable
  private readonly out: Writable
  private readonly maxLineBytes: number
  private chunks: Buffer[] = []
  private size = 0
  private skipping = false
  private closed = false
  private restore = () => {}

  constructor(options: StdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin
    const stdout = options.stdout ?? process.stdout
    this.maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024
    this.out = stdout
    if (stdout === process.stdout) {
      const guard = guardStdout()
      this.out = guard.protocol
      this.restore = guard.restore
    }
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onStreamError)
    this.stdin.once('end', this.onEnd)
    this.stdin.once('close', this.onEnd)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve()
      if (this.out.write(JSON.stringify(message) + '\n')) resolve()
      else this.out.once('drain', resolve)
    })
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onStreamError)
    this.stdin.off('end', this.onEnd)
    this.stdin.off('close', this.onEnd)
    this.stdin.pause()
    this.restore()
    this.chunks = []
    this.onclose?.()
  }

  private readonly onEnd = () => void this.close()
  private readonly onStreamError = (error: Error) => this.onerror?.(error)

  private readonly onData = (chunk: Buffer) => {
    let start = 0
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, newline))
      const line = this.skipping ? undefined : Buffer.concat(this.chunks).toString('utf8')
      this.chunks = []
      this.size = 0
      this.skipping = false
      if (line !== undefined) this.handle(line.replace(/\r$/, ''))
      start = newline + 1
    }
    this.take(chunk.subarray(start))
  }

  private take(part: Buffer) {
    if (this.skipping || !part.length) return
    this.size += part.length
    if (this.size <= this.maxLineBytes) return void this.chunks.push(part)
    this.chunks = []
    this.skipping = true
    this.reply(null, -32600, `Invalid Request: a line over ${this.maxLineBytes} bytes was skipped`)
  }

  private handle(line: string) {
    if (!line.trim()) return
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch {
      return this.reply(null, -32700, 'Parse error: each line on stdin must be one JSON-RPC 2.0 message')
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw)
    if (!parsed.success) {
      const id = (raw as { id?: unknown })?.id
      return this.reply(
        typeof id === 'string' || typeof id === 'number' ? id : null,
        -32600,
        'Invalid Request: not a JSON-RPC 2.0 request, notification or response',
      )
    }
    const rawArguments = protoKeyedArguments(raw)
    if (rawArguments) this.onRawArguments?.((raw as { id: string | number }).id, rawArguments)
    this.onmessage?.(parsed.data)
  }

  private reply(id: string | number | null, code: number, message: string) {
    if (!this.closed) this.out.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n')
  }
}

/**
 * From now on, whatever this process writes to `process.stdout` goes to stderr; `protocol` writes to the
 * real stdout. Call it before booting plugins when stdout is a protocol stream (a plugin may print while
 * it starts). `restore()` puts `process.stdout.write` back.
 */
export function guardStdout(): { protocol: Writable; restore(): void } {
  const write = process.stdout.write
  const real = write.bind(process.stdout)
  const protocol = { write: (chunk: string) => real(chunk), once: (event: string, fn: () => void) => process.stdout.once(event, fn) } as unknown as Writable
  process.stdout.write = ((chunk: any, ...rest: any[]) => process.stderr.write(chunk, ...rest)) as typeof process.stdout.write
  return { protocol, restore: () => void (process.stdout.write = write) }
}

import { StringDecoder } from 'node:string_decoder'
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { type LaunchFailure, type RunningProcess, startProcess } from '@dshkit/process'
import { LineSplitter, responseIdOf } from './lines.js'
import { oversizeResponse, oversizeWarning } from './oversize.js'

const STDERR_LINES = 20
const GRACE_MS = 2_000
// A server runs as long as the connection: no deadline, no resource limits, nothing of its output kept but what is read here.
const DEFAULTS = {
  maxOutputBytes: 0,
  graceMs: GRACE_MS,
  limits: { processes: false, memoryBytes: false, cpuSeconds: false, fileSizeBytes: false, openFiles: false },
} as const

export interface StdioOptions {
  command: string
  args: string[]
  env?: Record<string, string>
  cwd?: string
  /** Each line the server writes to stderr. */
  onStderr?(line: string): void
}

/**
 * The SDK's stdio framing over a server started by @dshkit/process (its own process group, an environment
 * marker), so `close()` ends the server and everything it started, `setsid` children too.
 */
export class StdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** How the process ended, once it has: for the error in-flight calls get. */
  exit: string | undefined
  readonly stderrTail: string[] = []
  private child: RunningProcess | undefined
  private readonly lines = new LineSplitter(
    (line) => this.parse(line),
    (bytes, ends) => {
      const id = responseIdOf(ends)
      this.onerror?.(new Error(oversizeWarning(bytes, id !== undefined)))
      // The request it answers fails now, rather than at its deadline.
      if (id !== undefined) this.onmessage?.(oversizeResponse(id, bytes))
    },
  )
  private closed = false

  constructor(private readonly options: StdioOptions) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.options
    const stderr = new StringDecoder('utf8')
    let partial = ''
    const child = startProcess({
      spec: {},
      cwd: cwd ?? process.cwd(),
      sandboxed: false,
      defaults: DEFAULTS,
      // The SDK's minimal inherited environment (PATH, HOME, USER, …), not all of ours: servers get no stray secrets.
      launch: () => ({ file: command, args, env: { ...getDefaultEnvironment(), ...env } }),
      markerPrefix: 'DSHKIT_MCP_SERVER',
      openStdin: true,
      onBytes: (chunk, stream) => {
        if (stream === 'stdout') return this.lines.push(chunk)
        const lines = (partial + stderr.write(chunk)).split('\n')
        partial = lines.pop()!.slice(-4096)
        for (const line of lines) this.noteStderr(line)
      },
      explain: (failure) => spawnProblem(failure, command),
    })
    this.child = child
    child.stdin?.on('error', (error) => this.onerror?.(error))
    void child.done.then((result) => {
      this.exit = result.error ?? (result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`)
      this.finish()
    })
    if (child.pid !== undefined) return Promise.resolve()
    return child.done.then((result) => Promise.reject(new Error(result.error ?? this.exit)))
  }

  private noteStderr(line: string) {
    if (!line.trim()) return
    this.stderrTail.push(line.slice(0, 500))
    if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift()
    this.options.onStderr?.(line)
  }

  private parse(line: string) {
    if (!line.trim()) return
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(line)
    } catch (error) {
      // A line that is not JSON-RPC (a stray log line, garbage): reported, skipped; the stream goes on.
      this.onerror?.(
        new Error(
          `the server wrote a line that is not JSON-RPC: ${JSON.stringify(line.slice(0, 80))}${line.length > 80 ? '…' : ''} (${(error as Error).message.split('\n')[0].slice(0, 120)})`,
        ),
      )
      return
    }
    this.onmessage?.(message)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (!stdin || this.closed || stdin.destroyed) return reject(new Error('the server is not running'))
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', resolve)
    })
  }

  /** Ends the server's whole process tree; resolves once it is gone. */
  close(): Promise<void> {
    this.closed = true
    this.child?.stdin?.end()
    return (this.child?.kill() ?? Promise.resolve()).then(() => this.finish())
  }

  private finish() {
    if (this.closed && this.onclose === undefined) return
    const onclose = this.onclose
    this.onclose = undefined
    this.closed = true
    onclose?.()
  }
}

function spawnProblem(failure: LaunchFailure, command: string): string {
  const { code } = failure
  if (code === 'ENOENT') return `could not start ${JSON.stringify(command)}: no such program or working directory (check command, PATH and cwd)`
  if (code === 'EACCES') return `could not start ${JSON.stringify(command)}: permission denied`
  return `could not start ${JSON.stringify(command)}: ${failure.error instanceof Error ? failure.error.message : failure.message}`
}

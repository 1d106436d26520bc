import { spawn, type ChildProcess } from 'node:child_process'
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { reapTree, runMarker } from '@dshkit/process'
import { LineSplitter, responseIdOf } from './lines.js'
import { oversizeResponse, oversizeWarning } from './oversize.js'

const STDERR_LINES = 20
const GRACE_MS = 2_000

export interface StdioOptions {
  command: string
  args: string[]
  env?: Record<string, string>
  cwd?: string
  /** Each line the server writes to stderr. */
  onStderr?(line: string): void
}

/**
 * The SDK's stdio framing over a server started in its own process group, with an environment marker, so
 * `close()` ends the server and everything it started (`setsid` children too) through @dshkit/process's reapTree.
 */
export class StdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** How the process ended, once it has: for the error in-flight calls get. */
  exit: string | undefined
  readonly stderrTail: string[] = []
  private child: ChildProcess | undefined
  private readonly lines = new LineSplitter(
    (line) => this.parse(line),
    (bytes, ends) => {
      const id = responseIdOf(ends)
      this.onerror?.(new Error(oversizeWarning(bytes, id !== undefined)))
      // The request it answers fails now, rather than at its deadline.
      if (id !== undefined) this.onmessage?.(oversizeResponse(id, bytes))
    },
  )
  private readonly marker = runMarker('DSHKIT_MCP_SERVER')
  private closed = false
  private reaped: Promise<void> | undefined

  constructor(private readonly options: StdioOptions) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.options
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        // The SDK's minimal inherited environment (PATH, HOME, USER, …), not all of ours: servers get no stray secrets.
        env: { ...getDefaultEnvironment(), ...env, [this.marker]: '1' },
        cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      })
      this.child = child
      child.once('error', (error) => {
        this.exit = spawnProblem(error, command)
        reject(new Error(this.exit))
        this.finish()
      })
      child.once('spawn', () => resolve())
      child.once('exit', (code, signal) => {
        this.exit = signal ? `was killed by ${signal}` : `exited with code ${code}`
      })
      child.once('close', () => this.finish())
      child.stdout!.on('data', (chunk: Buffer) => this.read(chunk))
      child.stdin!.on('error', (error) => this.onerror?.(error))
      let partial = ''
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        const lines = (partial + text).split('\n')
        partial = lines.pop()!.slice(-4096)
        for (const line of lines) this.noteStderr(line)
      })
    })
  }

  private noteStderr(line: string) {
    if (!line.trim()) return
    this.stderrTail.push(line.slice(0, 500))
    if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift()
    this.options.onStderr?.(line)
  }

  private read(chunk: Buffer) {
    this.lines.push(chunk)
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
    const pid = this.child?.pid
    this.child?.stdin?.end()
    if (pid !== undefined) this.reaped ??= reapTree(pid, this.marker, GRACE_MS)
    return (this.reaped ?? Promise.resolve()).then(() => this.finish())
  }

  private finish() {
    if (this.closed && this.onclose === undefined) return
    const onclose = this.onclose
    this.onclose = undefined
    this.closed = true
    onclose?.()
  }
}

function spawnProblem(error: NodeJS.ErrnoException, command: string): string {
  if (error.code === 'ENOENT') return `could not start ${JSON.stringify(command)}: no such program or working directory (check command, PATH and cwd)`
  if (error.code === 'EACCES') return `could not start ${JSON.stringify(command)}: permission denied`
  return `could not start ${JSON.stringify(command)}: ${error.message}`
}

import type { Socket } from 'node:net'
import { StringDecoder } from 'node:string_decoder'
import type { ApprovalRequest } from '@dshkit/tools'
import { argumentsHash, previewJson, previewText, type ApprovalResponse, type Responder } from '@dshkit/approval'
import { shellCallLines, type ShellFacts } from './shell-call.js'

export interface TtyOptions {
  /** Where answers are read from, line by line (default `process.stdin`). */
  input?: NodeJS.ReadableStream
  /** Where prompts are written (default `process.stdout`). */
  output?: NodeJS.WritableStream
  /** The arguments are shown as JSON cut to this many characters (default 400). */
  maxArgumentChars?: number
  /** Each string in the arguments is cut to this many characters, so the keys after a huge value still show (default 120). */
  maxValueChars?: number
  /** The shell provider, looked up when a `shell` call is asked about: the prompt shows its cwd and whether it is sandboxed. */
  shell?: () => ShellFacts | undefined
}

interface Job {
  request: ApprovalRequest
  signal: AbortSignal
  resolve(response: ApprovalResponse): void
  onAbort(): void
}

// How long input is read and dropped before a prompt is drawn: long enough for the event loop to
// read whatever the terminal or pipe already held, too short for a human to notice.
const SETTLE_MS = 30
// Tool names, sources and reasons are free text too: bounded like the arguments.
const MAX_TEXT_CHARS = 400
// A key held down keeps input coming; draw the prompt anyway after this many extra loop turns.
const MAX_SETTLE_TURNS = 50

const ALLOW: ApprovalResponse = Object.freeze({ kind: 'allow' })
const ALWAYS: ApprovalResponse = Object.freeze({ kind: 'allow', grant: 'exact', by: 'tty' })

/**
 * Asks a human at a terminal, one prompt at a time: y (yes), n (no, also a bare Enter) or
 * a (always allow this exact call: the service stores a grant for this tool and these arguments). Only input that arrives after a prompt is drawn can answer it:
 * whatever was typed before (still in Node's buffer or the kernel's) is read and dropped first,
 * so nobody approves a call they have not seen.
 */
export class TtyResponder {
  private readonly input: NodeJS.ReadableStream
  private readonly output: NodeJS.WritableStream
  private readonly maxArgumentChars: number
  private readonly maxValueChars: number
  private readonly shell: (() => ShellFacts | undefined) | undefined
  private readonly queue: Job[] = []
  private current: Job | undefined
  private closed: string | undefined
  private listening = false
  private readonly always = new Set<string>()
  private decoder = new StringDecoder('utf8')
  private partial = ''
  /** The current job's prompt is on screen; until then every byte read is dropped. */
  private shown = false
  /** Input arrived during the current settle turn. */
  private heard = false
  private settleTimer: NodeJS.Timeout | undefined
  private settleTurn: NodeJS.Immediate | undefined

  constructor(options: TtyOptions = {}) {
    this.input = options.input ?? process.stdin
    this.output = options.output ?? process.stdout
    this.maxArgumentChars = options.maxArgumentChars ?? 400
    this.maxValueChars = options.maxValueChars ?? 120
    this.shell = options.shell
  }

  /** The responder function to hand to the approval service. */
  readonly respond: Responder = (request, signal) => this.ask(request, signal)

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    const closed = this.closed ?? inputGone(this.input)
    if (closed) return Promise.resolve(deny(closed))
    if (signal.aborted) return Promise.resolve(deny(reasonOf(signal)))
    return new Promise((resolve) => {
      const job: Job = {
        request,
        signal,
        resolve,
        onAbort: () => this.cancel(job),
      }
      signal.addEventListener('abort', job.onAbort, { once: true })
      this.queue.push(job)
      this.pump()
    })
  }

  /** Denies everything pending and lets go of the input, for good. */
  close(reason: string) {
    this.closed ??= reason
    if (this.current && this.shown) this.write(`\n  → not answered: ${clean(reason)}\n`)
    const jobs = this.current ? [this.current, ...this.queue] : [...this.queue]
    this.queue.length = 0
    this.current = undefined
    this.shown = false
    this.stopSettling()
    for (const job of jobs) this.settle(job, deny(reason))
    this.stopListening()
  }

  private pump() {
    if (this.current) return
    let job = this.queue.shift()
    // Asks for the very same call that queued up behind an `always` need no prompt of their own.
    while (job && this.always.has(callKey(job.request))) {
      this.settle(job, ALLOW)
      job = this.queue.shift()
    }
    if (!job) return this.stopListening()
    this.current = job
    this.shown = false
    this.startListening()
    this.drainBuffered()
    // Reading resumes now; whatever the terminal already held arrives in the next loop turns.
    this.settleTimer = setTimeout(() => this.settleThenPrompt(job, 0), SETTLE_MS)
  }

  /** Waits for a loop turn in which no input arrived (each turn reads what was pending), then draws the prompt. */
  private settleThenPrompt(job: Job, turn: number) {
    this.settleTimer = undefined
    this.heard = false
    this.settleTurn = setImmediate(() => {
      this.settleTurn = undefined
      if (this.current !== job) return
      this.drainBuffered()
      if (this.heard && turn < MAX_SETTLE_TURNS) return this.settleThenPrompt(job, turn + 1)
      this.partial = ''
      this.decoder = new StringDecoder('utf8')
      this.shown = true
      this.write(this.prompt(job.request))
    })
  }

  private stopSettling() {
    clearTimeout(this.settleTimer)
    if (this.settleTurn) clearImmediate(this.settleTurn)
    this.settleTimer = this.settleTurn = undefined
  }

  // Input Node read while nobody was asked is type-ahead for no prompt: drop it.
  private drainBuffered() {
    const readable = this.input as NodeJS.ReadableStream & { readableLength?: number }
    while ((readable.readableLength ?? 0) > 0 && readable.read() !== null) this.heard = true
  }

  private settle(job: Job, response: ApprovalResponse) {
    job.signal.removeEventListener('abort', job.onAbort)
    job.resolve(response)
  }

  private finish(job: Job, response: ApprovalResponse, note: string) {
    if (this.shown) this.write(note)
    this.current = undefined
    this.shown = false
    this.stopSettling()
    this.settle(job, response)
    this.pump()
  }

  private cancel(job: Job) {
    const reason = reasonOf(job.signal)
    if (this.current === job) return this.finish(job, deny(reason), `\n  → not answered: ${clean(reason)}\n`)
    const index = this.queue.indexOf(job)
    if (index >= 0) this.queue.splice(index, 1)
    this.settle(job, deny(reason))
  }

  private readonly onData = (chunk: string | Buffer) => {
    if (!this.shown) {
      this.heard = true
      return
    }
    const owner = this.current
    const text = this.partial + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk))
    const lines = text.split('\n')
    this.partial = lines.pop() ?? ''
    for (const line of lines) {
      // Once this chunk's prompt is answered, the rest was typed before the next prompt appeared.
      if (!owner || this.current !== owner) break
      this.answer(owner, line.replace(/\r$/, '').trim().toLowerCase())
    }
    if (this.current !== owner) this.partial = ''
  }

  private answer(job: Job, line: string) {
    const tool = clean(job.request.exec.name)
    if (line === 'y' || line === 'yes') return this.finish(job, ALLOW, '  → allowed\n')
    if (line === 'n' || line === 'no' || line === '') return this.finish(job, deny('the user answered no at the terminal'), '  → denied\n')
    if (line === 'a' || line === 'always') {
      this.always.add(callKey(job.request))
      return this.finish(job, ALWAYS, `  → allowed; ${tool} with exactly these arguments will not be asked about again (grant stored)\n`)
    }
    this.write(`  please answer y (yes), n (no) or a (always allow this exact call): `)
  }

  private readonly onEnd = () => this.close('the terminal input closed, so no one can answer')
  private readonly onError = (error: Error) => this.close(`the terminal input failed (${error.message}), so no one can answer`)

  private startListening() {
    if (this.listening) return
    this.listening = true
    this.input.on('end', this.onEnd)
    this.input.on('close', this.onEnd)
    this.input.on('error', this.onError)
    this.drainBuffered()
    this.input.on('data', this.onData)
    this.input.resume()
    ;(this.input as Partial<Socket>).ref?.()
  }

  // Idle, the input is paused and unwatched, so it neither keeps the process alive nor eats others' input.
  private stopListening() {
    if (!this.listening) return
    this.listening = false
    this.input.off('data', this.onData)
    this.input.off('end', this.onEnd)
    this.input.off('close', this.onEnd)
    this.input.off('error', this.onError)
    this.input.pause()
    // A paused pipe still holds the event loop open; a socket-backed stdin must let go of it too.
    ;(this.input as Partial<Socket>).unref?.()
  }

  private prompt({ exec, reason, source }: ApprovalRequest): string {
    const asked = [source && clean(source), reason && clean(reason)].filter(Boolean).join(': ')
    const tool = clean(exec.name)
    return [
      '',
      `approval needed: ${tool}`,
      asked ? `  asked by  ${asked}` : undefined,
      ...shellCallLines(exec, this.shell?.()),
      `  arguments ${this.argumentsText(exec.arguments)}`,
      `allow ${tool}? [y]es / [n]o / [a]lways: `,
    ]
      .filter((line) => line !== undefined)
      .join('\n')
  }

  private argumentsText(args: unknown): string {
    return previewJson(args, { maxChars: this.maxArgumentChars, maxValueChars: this.maxValueChars })
  }

  private write(text: string) {
    try {
      this.output.write(text)
    } catch {
      // A broken output must not break the answer; the input side still decides.
    }
  }
}

/** The tool and the hash of its exact arguments: what an `always` covers. */
function callKey(request: ApprovalRequest): string {
  const known = (request as { argumentsHash?: unknown }).argumentsHash
  try {
    return `${request.exec.name}\0${typeof known === 'string' ? known : argumentsHash(request.exec.arguments ?? null)}`
  } catch {
    return `${request.exec.name}\0unhashable`
  }
}

function deny(reason: string): ApprovalResponse {
  return { kind: 'deny', reason }
}

function reasonOf(signal: AbortSignal): string {
  const reason = signal.reason
  return reason instanceof Error && reason.name === 'AskEnded' ? reason.message : 'the call was cancelled while waiting for an answer'
}

function inputGone(input: NodeJS.ReadableStream): string | undefined {
  const stream = input as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean }
  if (stream.readableEnded || stream.destroyed) return 'the terminal input is closed, so no one can answer'
}

// Model-written names and reasons must not move the cursor, recolour or reorder the prompt.
function clean(text: string): string {
  return previewText(text, MAX_TEXT_CHARS)
}

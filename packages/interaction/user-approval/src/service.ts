import { Context, Service } from 'cordis'
import type { ApprovalAnswer, ApprovalRequest, ApprovalService } from '@dshkit/tools'
import { TtyResponder } from './tty.js'
import type { ShellFacts } from './shell-call.js'
import { AskEnded, type ApprovalResponse, type Responder } from './types.js'

declare module 'cordis' {
  interface Context {
    approval: UserApproval
  }
}

export interface ApprovalOptions {
  responder: 'auto' | 'headless' | 'tty'
  timeoutMs: number
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
}

interface State {
  handlers: { respond: Responder }[]
  always: Set<string>
  pending: Set<AbortController>
  configured: Responder
  kind: 'headless' | 'tty'
  tty?: TtyResponder
  stopped: boolean
}

const ALLOW: ApprovalAnswer = Object.freeze({ kind: 'allow' })

/** The `approval` service: answers the registry's `ask` once, through the responders in turn. */
export class UserApproval extends Service implements ApprovalService {
  private readonly state: State
  private readonly timeoutMs: number

  constructor(ctx: Context, options: ApprovalOptions) {
    super(ctx, 'approval')
    this.timeoutMs = options.timeoutMs
    const [kind, why] = chooseResponder(options)
    let tty: TtyResponder | undefined
    let configured: Responder
    if (kind === 'tty') {
      tty = new TtyResponder({ input: options.input, output: options.output, shell: () => ctx.get('shell') as ShellFacts | undefined })
      configured = tty.respond
    } else {
      const reason = `no one can approve here (${why}); run in a terminal, or add an allow rule`
      configured = () => ({ kind: 'deny', reason })
    }
    const state: State = { handlers: [], always: new Set(), pending: new Set(), configured, kind, tty, stopped: false }
    this.state = state
    ctx.effect(() => () => stop(state), 'approval: deny what is pending')
  }

  /** Which responder answers when no programmatic one does. */
  get responder(): 'headless' | 'tty' {
    return this.state.kind
  }

  /** Tools the user allowed with `always`, for the life of this service. */
  remembered(): string[] {
    return [...this.state.always]
  }

  /**
   * Adds a programmatic responder, asked before the configured one in registration order;
   * it goes away with the calling plugin or when the returned function is called.
   */
  respond(responder: Responder): () => void {
    if (typeof responder !== 'function') throw new TypeError('approval.respond() needs a function (request, signal) => answer | undefined')
    const { handlers } = this.state
    const entry = { respond: responder }
    const dispose = this.ctx.effect(() => {
      handlers.push(entry)
      return () => {
        const index = handlers.indexOf(entry)
        if (index >= 0) handlers.splice(index, 1)
      }
    }, 'approval.respond()')
    return () => void dispose()
  }

  /** One-shot: resolves to allow or deny (with a reason); never rejects and never waits past `timeoutMs`. */
  async request(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const { state, timeoutMs } = this
    const { exec } = request
    if (state.always.has(exec.name)) return ALLOW
    if (state.stopped) return deny('the approval service has stopped, so no one can answer')
    if (exec.signal.aborted) return deny('the call was cancelled before anyone answered')
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new AskEnded(`no answer within ${timeoutMs} ms (user-approval timeoutMs), so the call is denied`)), timeoutMs)
    const onCancel = () => controller.abort(new AskEnded('the call was cancelled while waiting for an answer'))
    exec.signal.addEventListener('abort', onCancel, { once: true })
    state.pending.add(controller)
    try {
      const ended = new Promise<ApprovalResponse>((resolve) => {
        controller.signal.addEventListener('abort', () => resolve(deny((controller.signal.reason as Error).message)), { once: true })
      })
      const response = await Promise.race([ask(state, request, controller.signal), ended])
      if (response.kind === 'allow') {
        if ('always' in response && response.always) state.always.add(exec.name)
        return ALLOW
      }
      return response
    } finally {
      clearTimeout(timer)
      exec.signal.removeEventListener('abort', onCancel)
      state.pending.delete(controller)
    }
  }
}

/** Programmatic responders first, in registration order, then the configured one. */
async function ask(state: State, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
  for (const { respond } of [...state.handlers, { respond: state.configured }]) {
    if (signal.aborted) break
    let response: unknown
    try {
      response = await respond(request, signal)
    } catch (error) {
      return deny(`the approval responder failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (response === undefined) continue
    return checkResponse(response)
  }
  return deny('no responder answered')
}

function checkResponse(response: unknown): ApprovalResponse {
  const r = response as ApprovalResponse
  if (r?.kind === 'allow') return 'always' in r && r.always === true ? { kind: 'allow', always: true } : ALLOW
  if (r?.kind === 'deny') return deny(typeof r.reason === 'string' && r.reason ? r.reason : 'denied by an approval responder')
  return deny(`an approval responder answered ${describe(response)} instead of { kind: 'allow' } or { kind: 'deny', reason }`)
}

/** JSON when it can be (a cycle or a BigInt cannot), so describing a bad answer never throws. */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

function chooseResponder({ responder, input, output }: ApprovalOptions): ['headless' | 'tty', string] {
  if (responder === 'headless') return ['headless', "responder: 'headless'"]
  if (responder === 'tty') return ['tty', "responder: 'tty'"]
  const inTty = (input ?? process.stdin as NodeJS.ReadableStream & { isTTY?: boolean }) as { isTTY?: boolean }
  const outTty = (output ?? process.stdout) as { isTTY?: boolean }
  if (!inTty.isTTY) return ['headless', 'headless: stdin is not a terminal']
  if (!outTty.isTTY) return ['headless', 'headless: stdout is not a terminal']
  return ['tty', 'stdin and stdout are a terminal']
}

function stop(state: State) {
  state.stopped = true
  for (const controller of state.pending) controller.abort(new AskEnded('the approval service stopped before anyone answered'))
  state.pending.clear()
  state.tty?.close('the approval service has stopped, so no one can answer')
}

function deny(reason: string): ApprovalAnswer {
  return { kind: 'deny', reason }
}

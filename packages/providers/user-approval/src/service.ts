import { type Context, Service } from 'cordis'
import type { ApprovalAnswer, ApprovalRequest, ToolExecution } from '@dshkit/tools'
import {
  AskEnded,
  recorder,
  argumentsHash,
  callSummary,
  type AnswerOutcome,
  type AnsweredBy,
  type ApprovalAsk,
  type ApprovalProvider,
  type ApprovalResponse,
  type AskOutcome,
  type Grant,
  type PendingAsk,
  type Responder,
  type StaleRequest,
} from '@dshkit/approval'
import { matchableRule } from '@dshkit/rules'
import { askResponders, checkResponse, deny, grantWanted, refuse } from './answers.js'
import { answeredEvent, endedReason, makeAsk, publicAsk, requestedEvent } from './ask.js'
import { staleRequests } from './durable.js'
import { GrantStore } from './grants.js'
import { configuredResponder } from './responder.js'
import { ruleContext } from './rules.js'
import type { TtyResponder } from './tty.js'

export interface ApprovalOptions {
  responder: 'auto' | 'headless' | 'tty'
  timeoutMs: number
  /** The grants file (absolute), or false to keep grants in memory. */
  grants: string | false
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
}

type Answer = { response: ApprovalResponse; by: AnsweredBy }

interface Entry {
  ask: ApprovalAsk
  controller: AbortController
  finish(answer: Answer): void
}

interface State {
  handlers: { respond: Responder }[]
  pending: Map<string, Entry>
  /** Recently settled request ids, so a late answer hears "already answered", not "unknown". */
  settled: Set<string>
  configured: Responder
  kind: 'headless' | 'tty'
  tty?: TtyResponder
  stopped: boolean
}

const ALLOW: ApprovalAnswer = Object.freeze({ kind: 'allow' })
const MAX_SETTLED = 1000

/** The `approval` service: answers the registry's `ask` once, from a stored grant or through the responders in turn. */
export class UserApproval extends Service implements ApprovalProvider {
  /** The stored "always" answers, shared by every responder. */
  readonly grants: GrantStore
  private readonly state: State
  private readonly timeoutMs: number
  private readonly record: (event: Record<string, unknown>) => Promise<void>

  constructor(ctx: Context, options: ApprovalOptions) {
    super(ctx, 'approval')
    this.timeoutMs = options.timeoutMs
    this.grants = new GrantStore(options.grants || undefined, ruleContext(ctx))
    this.record = recorder(ctx, 'user-approval')
    const { kind, respond: configured, tty } = configuredResponder(ctx, options)
    this.state = { handlers: [], pending: new Map(), settled: new Set(), configured, kind, tty, stopped: false }
    const state = this.state
    ctx.effect(() => () => stop(state), 'approval: deny what is pending')
  }

  /** Which responder answers when no programmatic one does. */
  get responder(): 'headless' | 'tty' {
    return this.state.kind
  }

  /** Tools with an exact or rule grant (kept for compatibility; prefer `grants.list()`). */
  async remembered(): Promise<string[]> {
    return [...new Set((await this.grants.list()).map((grant) => grant.tool))]
  }

  /** The asks this process is waiting on, oldest first. */
  pending(): PendingAsk[] {
    return [...this.state.pending.values()].map(({ ask }) => publicAsk(ask))
  }

  /** Asks an earlier process recorded in the session and never saw answered; they cannot be answered. */
  stale(): StaleRequest[] {
    return staleRequests(this.ctx, new Set(this.state.pending.keys()))
  }

  /**
   * Answers a pending ask from outside the responder chain (a web page, a bot). `argumentsHash` must be
   * the one shown with the ask: an answer for other arguments is refused. The first answer wins; the
   * responder still asking sees its signal abort.
   */
  answer(requestId: string, argumentsHash: string, response: ApprovalResponse): AnswerOutcome {
    const entry = this.state.pending.get(requestId)
    if (!entry) {
      if (this.state.settled.has(requestId)) return refuse('answered', `request ${requestId} was already answered or ended`)
      if (this.stale().some((stale) => stale.requestId === requestId))
        return refuse('stale', `request ${requestId} was left by an earlier process and can no longer be answered`)
      return refuse('unknown', `no pending request ${requestId}`)
    }
    if (argumentsHash !== entry.ask.argumentsHash) {
      return refuse('mismatch', `request ${requestId} is for other arguments (hash ${entry.ask.argumentsHash.slice(0, 12)}…); the answer was not applied`)
    }
    entry.finish({ response: checkResponse(response), by: 'answer' })
    return { ok: true }
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

  /**
   * Without side effects (nothing asked or recorded; `explain()` uses it): the stored grant that would allow this
   * call at once, or undefined. Throws what `request()` would deny with: a grants file that cannot be read.
   */
  async covered(exec: ToolExecution): Promise<Grant | undefined> {
    return this.grants.match(exec, argumentsHash(exec.arguments ?? null))
  }

  /** One-shot: resolves to allow or deny (with a reason); never rejects and never waits past `timeoutMs`. */
  async request(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const { state } = this
    const { exec } = request
    if (state.stopped) return deny('the approval service has stopped, so no one can answer')
    if (exec.signal.aborted) return deny('the call was cancelled before anyone answered')
    let ask: ApprovalAsk
    try {
      ask = makeAsk(request)
    } catch (error) {
      return deny(`the call's arguments cannot be hashed for approval: ${(error as Error).message}`)
    }
    let grant: Grant | undefined
    try {
      grant = await this.grants.match(exec, ask.argumentsHash)
    } catch (error) {
      // Never ignored: a grants file nobody can read would otherwise be silently not applied.
      return deny((error as Error).message)
    }
    if (grant) {
      await this.record(answeredEvent(ask, { decision: 'allow', by: 'grant', grantId: grant.id }))
      return ALLOW
    }
    return this.waitForAnswer(ask)
  }

  private async waitForAnswer(ask: ApprovalAsk): Promise<ApprovalAnswer> {
    const { state, timeoutMs } = this
    const { exec } = ask
    const controller = new AbortController()
    let finish!: (answer: Answer) => void
    const answered = new Promise<Answer>((resolve) => {
      finish = (answer) => {
        if (!state.pending.has(ask.requestId)) return
        state.pending.delete(ask.requestId)
        resolve(answer)
      }
    })
    const entry: Entry = { ask, controller, finish }
    state.pending.set(ask.requestId, entry)
    const end = (by: AnsweredBy, why: string) => finish({ response: deny(why), by })
    const timer = setTimeout(() => end('timeout', `no answer within ${timeoutMs} ms (user-approval timeoutMs), so the call is denied`), timeoutMs)
    const onCancel = () => end('cancelled', 'the call was cancelled while waiting for an answer')
    exec.signal.addEventListener('abort', onCancel, { once: true })
    // Cancelled while the grants were being read: the listener above will never fire.
    if (exec.signal.aborted) onCancel()
    try {
      // Durable before anyone is shown it: a restart then lists it as stale, never as answerable.
      await this.record(requestedEvent(ask))
      if (state.pending.has(ask.requestId)) {
        this.emit('approval/requested', publicAsk(ask))
        askResponders([...state.handlers.map((handler) => handler.respond), state.configured], ask, controller.signal).then(
          (response) => finish({ response, by: 'responder' }),
          (error) => finish({ response: deny(`the approval responder failed: ${(error as Error).message}`), by: 'error' }),
        )
      }
      const { response, by } = await answered
      // Responders still asking stop now (the tty takes its prompt down).
      controller.abort(new AskEnded(endedReason(by, response)))
      const outcome = await this.settle(ask, response, by)
      return outcome.decision === 'allow' ? ALLOW : deny(outcome.reason ?? 'not approved')
    } finally {
      clearTimeout(timer)
      exec.signal.removeEventListener('abort', onCancel)
      state.pending.delete(ask.requestId)
      state.settled.add(ask.requestId)
      if (state.settled.size > MAX_SETTLED) state.settled.delete(state.settled.values().next().value!)
    }
  }

  /** Stores a grant the answer asked for, records the outcome, tells listeners, and lets queued asks the grant covers through. */
  private async settle(ask: ApprovalAsk, response: ApprovalResponse, by: AnsweredBy): Promise<AskOutcome> {
    const outcome: AskOutcome =
      response.kind === 'deny'
        ? { decision: 'deny', by, reason: response.reason || 'denied by an approval responder' }
        : await this.storeGrant(ask, response, by)
    await this.record(answeredEvent(ask, outcome))
    this.emit('approval/answered', publicAsk(ask), outcome)
    return outcome
  }

  /** An allow, with the grant it asked for stored (a failure to store it is said, and the call is still allowed). */
  private async storeGrant(ask: ApprovalAsk, response: Extract<ApprovalResponse, { kind: 'allow' }>, by: AnsweredBy): Promise<AskOutcome> {
    const outcome: AskOutcome = { decision: 'allow', by }
    const wanted = grantWanted(response)
    if (!wanted) return outcome
    try {
      const grant =
        wanted === 'exact'
          ? await this.grants.add({
              kind: 'exact',
              tool: ask.tool,
              argumentsHash: ask.argumentsHash,
              summary: response.summary ?? callSummary(ask.tool, ask.arguments),
              by: response.by ?? by,
            })
          : await this.grants.add({
              kind: 'rule',
              rule: matchableRule(this.ctx, wanted.rule),
              ...(response.summary && { summary: response.summary }),
              by: response.by ?? by,
            })
      outcome.grantId = grant.id
      void this.releaseCovered()
    } catch (error) {
      // The person allowed this call; only the "always" part failed, and the log says so.
      outcome.reason = `allowed once; the grant could not be stored: ${(error as Error).message}`
      this.ctx.logger('user-approval').warn(outcome.reason)
    }
    return outcome
  }

  /** After a new grant: every pending ask it covers is allowed at once. */
  private async releaseCovered() {
    for (const entry of [...this.state.pending.values()]) {
      try {
        const grant = await this.grants.match(entry.ask.exec, entry.ask.argumentsHash)
        if (grant) entry.finish({ response: { kind: 'allow' }, by: 'grant' })
      } catch {
        // A bad file is reported on the next ask; a pending ask just stays pending.
      }
    }
  }

  private emit(name: 'approval/requested' | 'approval/answered', ...args: unknown[]) {
    try {
      ;(this.ctx.emit as (name: string, ...args: unknown[]) => void)(name, ...args)
    } catch (error) {
      this.ctx.logger('user-approval').warn('a %s listener failed: %s', name, (error as Error).message)
    }
  }
}

function stop(state: State) {
  state.stopped = true
  for (const entry of [...state.pending.values()]) entry.finish({ response: deny('the approval service stopped before anyone answered'), by: 'stopped' })
  state.tty?.close('the approval service has stopped, so no one can answer')
}

import type { Context } from 'cordis'

/** What this needs of `ctx.approval`: user-approval's programmatic responders. */
interface RespondingApproval {
  respond(responder: (ask: { callId: string; arguments: unknown }) => { kind: 'allow' } | undefined): () => void
}

// A framework may ask and never run the call (its user said no): these maps forget the oldest beyond this.
const MAX_REMEMBERED = 10_000
const byContext = new WeakMap<Context, FrameworkApprovals>()

/**
 * Hands dshkit's `ask` to an agent framework's own approval flow (AI SDK `needsApproval`, Agents interruptions):
 * the framework asks whether a call needs approval (dshkit's dry run says whether a policy would ask), asks its
 * user, and runs the call only if the user said yes; dshkit's ask for that exact call is then answered yes by a
 * responder, so the ask and its answer are still recorded. Any other ask goes on to the configured responders.
 */
export class FrameworkApprovals {
  private readonly asked = new Map<string, string>()
  private readonly approved = new Map<string, string>()
  // The checks still running per step: a framework that starts each call once its own check is done would otherwise
  // hand a step's calls over in parts (the dry run does file-system work), and the parts would be separate batches.
  private readonly checking = new WeakMap<object, Set<Promise<boolean>>>()
  // The order the framework checked calls in: the model's order, even when it then starts them in another.
  private readonly checkOrder = new Map<string, string>()
  private checks = 0
  // ctx.tools.explain taken once (a read through the service proxy builds one per call), again after a service change.
  private explain: ((call: { callId: string; name: string; arguments: unknown }) => ReturnType<Context['tools']['explain']>) | undefined

  /** One per context, so adapters made again and again add one responder, not one each. */
  static for(ctx: Context): FrameworkApprovals {
    let approvals = byContext.get(ctx)
    if (!approvals) byContext.set(ctx, (approvals = new FrameworkApprovals(ctx)))
    return approvals
  }

  private constructor(private readonly ctx: Context) {
    const approval = ctx.get('approval') as Partial<RespondingApproval> | undefined
    if (typeof approval?.respond !== 'function') {
      throw new Error(
        "approval: 'framework' needs the approval service with responders (@dshkit/user-approval, part of dsh-base); plug it first, or pass approval: 'dshkit'",
      )
    }
    ctx.on('internal/service', () => void (this.explain = undefined))
    approval.respond((ask) => {
      const shown = this.approved.get(ask.callId)
      if (shown === undefined || shown !== JSON.stringify(ask.arguments)) return undefined
      this.approved.delete(ask.callId)
      return { kind: 'allow' }
    })
  }

  /** Whether a policy would ask about this call; if so the framework's user answers instead. `step` as for StepBatcher. */
  needsApproval(name: string, callId: string, input: unknown, step?: object): Promise<boolean> {
    remember(this.checkOrder, callId, String(this.checks++))
    const check = this.judge(name, callId, input)
    if (!step) return check
    let running = this.checking.get(step)
    if (!running) this.checking.set(step, (running = new Set()))
    const tracked = running
    tracked.add(check)
    return check.finally(() => tracked.delete(check))
  }

  /** Resolves once every check of this step started so far has settled: await it before handing a call to the batcher. */
  async checked(step: object): Promise<void> {
    const running = this.checking.get(step)
    if (running?.size) await Promise.allSettled([...running])
  }

  /** The call's place among the calls checked (the model's order), for StepBatcher's `order`. */
  order(callId: string): number | undefined {
    const order = this.checkOrder.get(callId)
    return order === undefined ? undefined : Number(order)
  }

  private async judge(name: string, callId: string, input: unknown): Promise<boolean> {
    this.explain ??= this.ctx.tools.explain.bind(this.ctx.tools)
    const { decision } = await this.explain({ callId, name, arguments: input })
    if (decision.kind !== 'ask') return false
    remember(this.asked, callId, JSON.stringify(input))
    return true
  }

  /** The framework runs a call: if it asked its user about it, the user said yes to exactly these arguments. */
  running(callId: string, input: unknown): void {
    const shown = this.asked.get(callId)
    if (shown === undefined) return
    this.asked.delete(callId)
    if (shown === JSON.stringify(input)) remember(this.approved, callId, shown)
  }
}

function remember(map: Map<string, string>, key: string, value: string) {
  map.delete(key)
  map.set(key, value)
  if (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value!)
}

import { Service, type Context } from 'cordis'
import type { ApprovalAnswer, ApprovalRequest, ApprovalService } from '@dshkit/tools'

interface Ask {
  id: number
  request: ApprovalRequest
  answer(answer: ApprovalAnswer): void
}

/** Provides `ctx.approval` itself: asks wait in a queue until a UI answers them by id. */
export class QueueApproval extends Service implements ApprovalService {
  private readonly asks = new Map<number, Ask>()
  private nextId = 1

  constructor(ctx: Context) {
    super(ctx, 'approval')
    // Disposed with pending asks: deny them, so no call waits forever.
    ctx.effect(() => () => this.asks.forEach((ask) => ask.answer({ kind: 'deny', reason: 'the approval UI closed' })), 'queue-approval')
  }

  request(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return new Promise((resolve) => {
      const id = this.nextId++
      const onAbort = () => ask.answer({ kind: 'deny', reason: 'the call was cancelled' })
      const ask: Ask = {
        id,
        request,
        answer: (answer) => {
          this.asks.delete(id)
          request.exec.signal.removeEventListener('abort', onAbort)
          resolve(answer)
        },
      }
      this.asks.set(id, ask)
      request.exec.signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  pending() {
    return [...this.asks.values()].map(({ id, request }) => ({ id, tool: request.exec.name, reason: request.reason }))
  }

  answer(id: number, answer: ApprovalAnswer) {
    this.asks.get(id)?.answer(answer)
  }
}

export default { name: 'queue-approval', apply: (ctx: Context) => void new QueueApproval(ctx) }

import type { AskView } from './view.js'

/** How an ask left the page. */
export type Outcome = 'allowed' | 'allowed-exact' | 'allowed-rule' | 'denied' | 'timed-out' | 'cancelled' | 'answered-elsewhere' | 'stopped'

export interface EndedView {
  requestId: string
  callId: string
  tool: string
  outcome: Outcome
  /** One line for people: who answered, or why it ended. */
  detail: string
  askedAt: number
  endedAt: number
  /** Read from an abort reason, before the approval service said exactly how it ended. */
  guessed?: boolean
}

/** What every watching tab receives. */
export type BoardMessage = { type: 'asked'; ask: AskView } | { type: 'ended'; ended: EndedView }

export type ClaimResult = { ok: true; ask: AskView } | { ok: false; status: 404 | 409 | 410; message: string }

interface Entry {
  ask: AskView
}

const ENDED_MEMORY = 1000

/** The pending asks and how recent ones ended; the first claim of an ask wins, synchronously. */
export class Board {
  private readonly pending = new Map<string, Entry>()
  private readonly recent: EndedView[] = []
  /** Why an id can no longer be answered, kept longer than `recent` so a late answer gets a precise 409/410. */
  private readonly ended = new Map<string, EndedView>()
  private readonly watchers = new Set<(message: BoardMessage) => void>()

  constructor(private readonly keepRecent: number) {}

  add(ask: AskView) {
    this.pending.set(ask.requestId, { ask })
    this.broadcast({ type: 'asked', ask })
  }

  /** Whether an answer for this ask may go ahead; the caller ends it with `answer` in the same tick, so the first one wins. */
  claim(requestId: string, argumentsHash: unknown): ClaimResult {
    const entry = this.pending.get(requestId)
    if (!entry) {
      const ended = this.ended.get(requestId)
      if (!ended) return { ok: false, status: 404, message: `no pending ask ${JSON.stringify(requestId)} (it may be from before a restart)` }
      const status = ended.outcome.startsWith('allowed') || ended.outcome === 'denied' || ended.outcome === 'answered-elsewhere' ? 409 : 410
      return { ok: false, status, message: `this ask can no longer be answered: ${ended.detail}` }
    }
    if (argumentsHash !== entry.ask.argumentsHash) {
      return { ok: false, status: 409, message: 'the answer was for different arguments than this ask has; reload the page and look again' }
    }
    return { ok: true, ask: entry.ask }
  }

  /** Ends a claimed ask with the page's answer and shows every tab how it ended. */
  answer(requestId: string, outcome: Outcome, detail: string): boolean {
    const entry = this.pending.get(requestId)
    if (!entry) return false
    this.end(entry.ask, outcome, detail, false)
    return true
  }

  /** The ask ended without an answer from this page (timeout, cancel, another responder, stop); `detail` is read from the abort. */
  drop(requestId: string, outcome: Outcome, detail: string) {
    const entry = this.pending.get(requestId)
    if (entry) this.end(entry.ask, outcome, detail, true)
  }

  /** The approval service's own account of how an ask ended: ends it, or corrects a guessed outcome (`force`: any outcome). */
  refine(requestId: string, outcome: Outcome, detail: string, force = false) {
    if (this.pending.has(requestId)) return this.end(this.pending.get(requestId)!.ask, outcome, detail, false)
    const ended = this.ended.get(requestId)
    if (!ended || !(ended.guessed || force)) return
    const fixed: EndedView = { ...ended, outcome, detail, guessed: false }
    this.ended.set(requestId, fixed)
    const index = this.recent.findIndex((item) => item.requestId === requestId)
    if (index >= 0) this.recent[index] = fixed
    this.broadcast({ type: 'ended', ended: fixed })
  }

  snapshot() {
    return { pending: [...this.pending.values()].map((entry) => entry.ask), recent: [...this.recent] }
  }

  watch(watcher: (message: BoardMessage) => void): () => void {
    this.watchers.add(watcher)
    return () => void this.watchers.delete(watcher)
  }

  private end(ask: AskView, outcome: Outcome, detail: string, guessed: boolean) {
    this.pending.delete(ask.requestId)
    const ended: EndedView = {
      requestId: ask.requestId,
      callId: ask.callId,
      tool: ask.tool,
      outcome,
      detail,
      askedAt: ask.askedAt,
      endedAt: Date.now(),
      guessed,
    }
    this.ended.set(ask.requestId, ended)
    if (this.ended.size > ENDED_MEMORY) this.ended.delete(this.ended.keys().next().value!)
    this.recent.unshift(ended)
    if (this.recent.length > this.keepRecent) this.recent.length = this.keepRecent
    this.broadcast({ type: 'ended', ended })
  }

  private broadcast(message: BoardMessage) {
    for (const watcher of this.watchers) watcher(message)
  }
}

import type { Context, HookCallResult, HookJson, PostAnswer, Stop } from './types.js'

/** What the bridge remembers of its own rewrite of a call, so the pass it starts does not run the rewriters again. */
export interface OwnRewrite {
  /** The new arguments, canonical (key order aside), to know the pass they started. */
  arguments: string
  ask?: { kind: 'ask'; reason: string; source: string }
  /** The hooks that gave an updatedInput: on that pass they sit out (no loop); every other hook judges the new input. */
  rewriters: ReadonlySet<string>
}

/** Everything the bridge keeps about one call, from its first pre-execute pass to its post-execute answer. */
export class CallState {
  /** For the model, appended to the result: one per hook and text. */
  readonly contexts: Context[] = []
  /** Hooks' `systemMessage`s and post-run failures, for `meta.hooks`. */
  readonly systemMessages: HookJson[] = []
  /** A post hook's `continue: false`: the call ran, no later one will. */
  stop?: Stop
  /** The post-event hooks that ran and what each decided (trace detail on the post-execute answer). */
  readonly ran: HookJson[] = []
  /** The bridge's own rewrite, read (once) by the pass it starts. */
  rewrite?: OwnRewrite

  addContext(source: string, text: string) {
    // A hook judging the call again after a rewrite often says the same thing twice; once is enough.
    if (this.contexts.some((c) => c.source === source && c.content[0].text === text)) return
    this.contexts.push({ source, content: [{ type: 'text', text }] })
  }

  /** Whether anything goes on the result besides the trace. */
  get noted(): boolean {
    return this.contexts.length > 0 || this.systemMessages.length > 0 || this.stop !== undefined
  }
}

/** The calls in flight, by token; a call's record ends with its post-execute answer (or with the call, unanswered). */
export class CallStates {
  private readonly states = new WeakMap<symbol, CallState>()

  of(token: symbol): CallState {
    let found = this.states.get(token)
    if (!found) this.states.set(token, (found = new CallState()))
    return found
  }

  /** The rewrite the bridge made on the previous pass, now read: a later pass is not its own. */
  takeRewrite(token: symbol): OwnRewrite | undefined {
    const state = this.states.get(token)
    const rewrite = state?.rewrite
    if (state) state.rewrite = undefined
    return rewrite
  }

  end(token: symbol): CallState | undefined {
    const found = this.states.get(token)
    this.states.delete(token)
    return found
  }
}

/** The hooks' contexts and meta as an accept or replace; the runtime appends the contexts and merges `meta.hooks` over the inner meta. */
export function answer<R extends HookCallResult>(inner: R, state: CallState | undefined, replaced: PostAnswer | undefined): R | PostAnswer {
  const detail = state?.ran.length ? { hooks: state.ran } : undefined
  const notes = state?.noted ? state : undefined
  if (!notes && !replaced) return detail ? { kind: 'accept', detail } : inner
  const hooks: Record<string, HookJson> = {}
  if (notes?.systemMessages.length) hooks.systemMessages = notes.systemMessages
  // A second bridge inside (Claude Code and Codex hooks together) may have filled meta.hooks already.
  const meta = Object.keys(hooks).length ? { hooks: mergeHookMeta(inner.meta?.hooks, hooks) } : undefined
  const additionalContexts = notes?.contexts.length ? notes.contexts : undefined
  const base = replaced ?? { kind: 'accept' as const }
  const stop = notes?.stop
  return { ...base, ...(additionalContexts && { additionalContexts }), ...(meta && { meta }), ...(detail && { detail }), ...(stop && { stop }) }
}

function mergeHookMeta(outer: unknown, ours: Record<string, HookJson>): Record<string, HookJson> {
  if (typeof outer !== 'object' || outer === null || Array.isArray(outer)) return ours
  const merged: Record<string, HookJson> = { ...(outer as Record<string, HookJson>) }
  for (const [key, list] of Object.entries(ours)) {
    const before = merged[key]
    merged[key] = Array.isArray(before) && Array.isArray(list) ? [...before, ...list] : list
  }
  return merged
}

import type { ContextMessage, ToolStop } from '@dshkit/tools'

/** The moments a harness owns (not a tool call): fired with `ctx.loop.lifecycle(event)`; hook bridges run their hooks. */
export type LifecycleEvent =
  | { name: 'SessionStart'; source: 'startup' | 'resume' | 'clear' | 'compact' }
  /** `promptId`: the harness's id of this prompt (hook bridges send it as `prompt_id` until the next prompt); one is made when absent. */
  | { name: 'UserPromptSubmit'; prompt: string; promptId?: string }
  | { name: 'Stop' | 'SubagentStop'; stopHookActive?: boolean }
  | { name: 'PreCompact'; trigger: 'manual' | 'auto'; customInstructions?: string }
  | { name: 'SessionEnd'; reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other' }
  | { name: 'Notification'; message: string; notificationType?: string }

/** One listener's say about an event. */
export interface LifecycleAnswer {
  /** Stop / SubagentStop: do not end the turn, go on with this reason (for the model); UserPromptSubmit: refuse the prompt. */
  block?: { reason: string; by: string }
  /** SessionStart / UserPromptSubmit: context for the model. */
  contexts?: ContextMessage[]
  /** A hook's `continue: false`: end the session. */
  stop?: ToolStop
}

/** Every listener's answers together: the first block and stop (listener order), every context. */
export interface LifecycleOutcome {
  block?: { reason: string; by: string }
  contexts: ContextMessage[]
  stop?: ToolStop
}

declare module 'cordis' {
  interface Events {
    /** A harness moment (see LifecycleEvent); a listener reports what it wants done through `answer`. */
    'loop/lifecycle'(event: Readonly<LifecycleEvent>, answer: (answer: LifecycleAnswer) => void): Promise<void>
  }
}

const FIELDS: Record<LifecycleEvent['name'], Record<string, (value: unknown) => boolean>> = {
  SessionStart: { source: (v) => ['startup', 'resume', 'clear', 'compact'].includes(v as string) },
  UserPromptSubmit: { prompt: (v) => typeof v === 'string', promptId: (v) => v === undefined || (typeof v === 'string' && v.length > 0 && v.length <= 200) },
  Stop: { stopHookActive: (v) => v === undefined || typeof v === 'boolean' },
  SubagentStop: { stopHookActive: (v) => v === undefined || typeof v === 'boolean' },
  PreCompact: { trigger: (v) => v === 'manual' || v === 'auto', customInstructions: (v) => v === undefined || typeof v === 'string' },
  SessionEnd: { reason: (v) => ['clear', 'logout', 'prompt_input_exit', 'other'].includes(v as string) },
  Notification: { message: (v) => typeof v === 'string', notificationType: (v) => v === undefined || typeof v === 'string' },
}

/** Throws a TypeError naming the event and the field when `event` is not a LifecycleEvent. */
export function checkLifecycleEvent(event: unknown): asserts event is LifecycleEvent {
  const name = (event as { name?: unknown } | null)?.name
  const fields = typeof name === 'string' && Object.hasOwn(FIELDS, name) ? FIELDS[name as LifecycleEvent['name']] : undefined
  if (!fields) throw new TypeError(`lifecycle(event) needs event.name, one of ${Object.keys(FIELDS).join(', ')}`)
  for (const [field, ok] of Object.entries(fields)) {
    if (!ok((event as Record<string, unknown>)[field])) throw new TypeError(`lifecycle event ${name}: ${field} is missing or not valid`)
  }
}

export function mergeAnswers(answers: readonly LifecycleAnswer[]): LifecycleOutcome {
  const outcome: LifecycleOutcome = { contexts: answers.flatMap((answer) => answer.contexts ?? []) }
  const block = answers.find((answer) => answer.block)?.block
  const stop = answers.find((answer) => answer.stop)?.stop
  if (block) outcome.block = block
  if (stop) outcome.stop = stop
  return outcome
}

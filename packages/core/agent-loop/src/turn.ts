import type { ContextMessage, ToolStop } from '@dshkit/tools'
import type { LifecycleEvent, LifecycleOutcome } from './lifecycle.js'

/** One user prompt, run as Claude Code runs a turn: UserPromptSubmit before, Stop after (which may send it back). */
export interface TurnInput<T> {
  prompt: string
  /** The harness's id of this prompt (hook payloads' `prompt_id`); one is made when absent. */
  promptId?: string
  /**
   * Runs the framework once. The first round gets the prompt and the UserPromptSubmit hooks' contexts; each later
   * round gets a Stop hook's reason as `text` (send it to the model as a user message and go on).
   */
  run(round: TurnRound): Promise<T>
  /** The session stop a round's output carries (a hook's `continue: false` in a tool result): no Stop hooks then. */
  stopOf?(output: NoInfer<T>): ToolStop | undefined
  /** How often Stop hooks may send the turn back before it ends anyway (default 3; a hook that always blocks cannot loop forever). */
  maxContinuations?: number
}

export interface TurnRound {
  /** 0 for the prompt, then 1, 2… for each continuation a Stop hook asked for. */
  round: number
  /** The prompt, or the Stop hook's reason. */
  text: string
  /** Context for the model (UserPromptSubmit's on round 0, the Stop hooks' after). */
  contexts: ContextMessage[]
}

export interface TurnOutcome<T> {
  /** Each round's output, in order (empty when the prompt was refused). */
  outputs: T[]
  /** A UserPromptSubmit hook refused the prompt: nothing ran. */
  refused?: { reason: string; by: string }
  /** The session was stopped (a hook's `continue: false`, at the prompt, in a tool result or at Stop): end it. */
  stop?: ToolStop
  /** Set when Stop hooks still blocked after `maxContinuations` rounds: the turn ended with their last reason unheeded. */
  unheeded?: { reason: string; by: string }
}

type Fire = (event: LifecycleEvent) => Promise<LifecycleOutcome>

/** Runs `input.run` for one prompt between the UserPromptSubmit and Stop moments (see TurnInput). */
export async function runTurn<T>(fire: Fire, input: TurnInput<T>): Promise<TurnOutcome<T>> {
  // Checked before any hook fires: a turn that cannot run must not leave a prompt submitted.
  if (typeof input?.run !== 'function') throw new TypeError('turn: run must be a function that runs the framework once for a round')
  if (input.stopOf !== undefined && typeof input.stopOf !== 'function') throw new TypeError('turn: stopOf must be a function or left out')
  const limit = input.maxContinuations ?? 3
  if (!Number.isInteger(limit) || limit < 0) throw new TypeError(`turn: maxContinuations must be a whole number ≥ 0, not ${String(input.maxContinuations)}`)
  const submitted = await fire({ name: 'UserPromptSubmit', prompt: input.prompt, ...(input.promptId !== undefined && { promptId: input.promptId }) })
  if (submitted.stop) return { outputs: [], stop: submitted.stop, ...(submitted.block && { refused: submitted.block }) }
  if (submitted.block) return { outputs: [], refused: submitted.block }
  const outputs: T[] = []
  let next: TurnRound = { round: 0, text: input.prompt, contexts: submitted.contexts }
  for (;;) {
    const output = await input.run(next)
    outputs.push(output)
    const stop = input.stopOf?.(output)
    if (stop) return { outputs, stop }
    const stopping = await fire({ name: 'Stop', stopHookActive: next.round > 0 })
    if (stopping.stop) return { outputs, stop: stopping.stop }
    if (!stopping.block) return { outputs }
    if (next.round >= limit) return { outputs, unheeded: stopping.block }
    next = { round: next.round + 1, text: stopping.block.reason, contexts: stopping.contexts }
  }
}

import type { Context } from 'cordis'
import type { SessionService } from '@dshkit/session'
import { definePlugin, toolFailure, type ToolDispatchExecution, type ToolExecutionResult } from '@dshkit/tools'
import { errorMessage } from '@dshkit/common'
import { Config, type ConfigInput } from './config.js'
import { ABORTED, unlessAborted } from './wait.js'

export { Config, type ConfigInput } from './config.js'

export const name = 'session-checkpoint-policy'
export const inject = ['tools', 'session']

const SOURCE = 'session-checkpoint-policy'

export const apply = (ctx: Context, input?: ConfigInput) => {
  const { unrecorded } = Config.parse(input)
  const service: SessionService = ctx.session
  // A session provider from before flush() existed could never promise durability: refuse to start rather than fail every call.
  if (typeof service.flush !== 'function' || typeof service.refused !== 'function' || typeof service.recorded !== 'function') {
    throw new TypeError(
      'session-checkpoint-policy needs ctx.session with flush(), refused() and recorded(), as @dshkit/session provides; this session provider has no flush()',
    )
  }
  // The methods read once (the fiber restarts if the session is replaced): each read through cordis's service proxy
  // builds a new shadow context, per call.
  const session = { flush: service.flush.bind(service), refused: service.refused.bind(service), recorded: service.recorded.bind(service) }
  // A session provider from before leases: the session is this process's while it is open.
  const leaseRemainingMs = typeof service.leaseRemainingMs === 'function' ? service.leaseRemainingMs.bind(service) : () => Number.POSITIVE_INFINITY
  // Tokens of calls whose body this policy let start and that are still running: their nested calls need no wait.
  const running = new Set<symbol>()
  const run = (exec: ToolDispatchExecution, next: () => Promise<ToolExecutionResult>) => {
    running.add(exec.token)
    return next().finally(() => running.delete(exec.token))
  }

  /** Waits for the session's barrier, then runs the body only if the call's tool/call is durable. */
  const afterCheckpoint = async (exec: ToolDispatchExecution, next: () => Promise<ToolExecutionResult>) => {
    let flushError: unknown
    const waited = await unlessAborted(session.flush(), exec.signal).catch((error) => {
      flushError = error
    })
    if (waited === ABORTED) {
      return toolFailure('ABORTED_BEFORE_DISPATCH', `${exec.name} was cancelled while its tool/call was being made durable; it did not run`, 'caller')
    }
    // A failure elsewhere in the barrier does not stop a call whose own record made it to disk.
    if (session.recorded(exec.callId) === 'call') return run(exec, next)
    if (flushError !== undefined || session.refused(exec.callId)) {
      const why = flushError !== undefined ? errorMessage(flushError) : 'the session refused to append it'
      return toolFailure(
        'PIPELINE_ERROR',
        `${exec.name} was not run: its tool/call (call ${exec.callId}) could not be made durable in the session log first (${why})`,
        SOURCE,
      )
    }
    if (unrecorded === 'run') return run(exec, next)
    return toolFailure(
      'PIPELINE_ERROR',
      `${exec.name} was not run: the session log has no tool/call for call ${exec.callId}, and session-checkpoint-policy is set to refuse unrecorded calls; ` +
        'run calls through ctx.loop.executeToolCalls (it records them first), or append the tool/call before ctx.tools.execute',
      SOURCE,
    )
  }

  // Outermost (prepend): the wait is not the tool's time (timeout-policy), and retries do not wait again.
  ctx.on(
    'tools/execute',
    (exec, next) => {
      // Already durable (ctx.loop waits for that before it executes): nothing to wait for.
      if (session.recorded(exec.callId) === 'call') return run(exec, next)
      // A call made from inside a tool this policy let run (job_kill re-running a kill): the enclosing call is durable.
      if (exec.parent !== undefined && running.has(exec.parent)) return run(exec, next)
      return afterCheckpoint(exec, next)
    },
    { prepend: true },
  )

  // Innermost of the wrappers plugged before this one (retry-policy, timeout-policy), so every attempt is checked
  // right before its body starts: a process paused past its lease (SIGSTOP, GC, a frozen VM) must not run a call
  // the worker that took the session over has already closed as TOOL_OUTCOME_UNKNOWN.
  ctx.on('tools/execute', async (exec, next) => {
    if (leaseRemainingMs() > 0) return next()
    return toolFailure(
      'PIPELINE_ERROR',
      `${exec.name} was not run: this worker's lease on the session may have run out before the body could start ` +
        '(the process was paused or stalled); another worker may have taken the session over and closed the call as TOOL_OUTCOME_UNKNOWN',
      SOURCE,
      { retryable: false },
    )
  })
}

export default definePlugin({ name, inject, Config, apply })

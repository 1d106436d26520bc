import type { Context } from 'cordis'
import { definePlugin, toolFailure, type DispatchOptions, type ToolExecution, type ToolExecutionResult } from '@dshkit/tools'
import { neverAborted } from '@dshkit/common'
import { Config, type ConfigInput } from './config.js'
import './meta.js'

export { Config, type ConfigInput } from './config.js'

export const name = 'timeout-policy'
export const inject = ['tools']

/** Why the wrapper's signal aborted: `run.signal.reason` in the body. */
export class ToolTimeoutError extends Error {
  override name = 'TimeoutError'
  constructor(
    readonly tool: string,
    readonly timeoutMs: number,
  ) {
    super(`\`${tool}\` timed out after ${timeoutMs} ms`)
  }
}

const ABANDONED = Symbol('abandoned')
const noop = () => {}

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const { definitions } = ctx.tools
  const { perTool, defaultMs, abandonAfterMs } = config

  const deadlineOf = (tool: string): number | undefined => {
    if (Object.hasOwn(perTool, tool)) return perTool[tool] ?? undefined
    return definitions.get(tool)?.timeoutMs ?? defaultMs
  }

  ctx.on('tools/execute', async (exec, next) => {
    const timeoutMs = deadlineOf(exec.name)
    // Already cancelled: no deadline to run, but a stubborn body is still abandoned if configured.
    if (timeoutMs === undefined || (exec.signal.aborted && abandonAfterMs === undefined)) return next()
    return withDeadline(exec, next, timeoutMs, abandonAfterMs)
  })
}

/** Runs `next({ signal })` with a signal that aborts at the deadline; the runtime fuses it with the caller's. */
async function withDeadline(
  exec: ToolExecution,
  next: (options?: DispatchOptions) => Promise<ToolExecutionResult>,
  timeoutMs: number,
  abandonAfterMs: number | undefined,
): Promise<ToolExecutionResult> {
  const outer = exec.signal
  const controller = new AbortController()
  let timedOut = false
  let abandonTimer: ReturnType<typeof setTimeout> | undefined
  let abandon = noop
  const abandoned =
    abandonAfterMs === undefined
      ? undefined
      : new Promise<typeof ABANDONED>((resolve) => {
          abandon = () => resolve(ABANDONED)
        })
  const timer = setTimeout(() => {
    timedOut = true
    outer.removeEventListener('abort', onOuterAbort)
    if (abandoned) abandonTimer = setTimeout(abandon, abandonAfterMs)
    controller.abort(new ToolTimeoutError(exec.name, timeoutMs))
  }, timeoutMs)
  // A caller abort is not a timeout: the registry reports it as ABORTED. A body that ignores it is
  // abandoned after abandonAfterMs as well, so a cancelled call cannot hang its caller either.
  let cancelled = false
  const onOuterAbort = () => {
    clearTimeout(timer)
    cancelled = true
    if (abandoned) abandonTimer = setTimeout(abandon, abandonAfterMs)
  }
  const watchOuter = outer !== neverAborted
  if (watchOuter) outer.addEventListener('abort', onOuterAbort, { once: true })
  if (outer.aborted) onOuterAbort()
  let result: ToolExecutionResult | typeof ABANDONED
  // A body that blocks the event loop settles before the overdue timer can fire: the clock decides too.
  const start = performance.now()
  let settledAt = Number.POSITIVE_INFINITY
  try {
    const running = next({ signal: controller.signal }).finally(() => {
      settledAt = performance.now()
    })
    if (abandoned) {
      running.catch(noop) // settles after we have moved on; the registry already reports it
      result = await Promise.race([running, abandoned])
    } else {
      result = await running
    }
  } finally {
    clearTimeout(timer)
    clearTimeout(abandonTimer)
    if (watchOuter) outer.removeEventListener('abort', onOuterAbort)
  }
  if (result === ABANDONED && cancelled) {
    return toolFailure(
      'ABORTED',
      `\`${exec.name}\` was cancelled and did not stop within ${abandonAfterMs} ms; it was abandoned and may still be running`,
      'caller',
      { abandoned: true },
    )
  }
  if (result === ABANDONED) {
    return toolFailure(
      'TOOL_TIMEOUT',
      `\`${exec.name}\` timed out after ${timeoutMs} ms and did not stop within ${abandonAfterMs} ms more; it was abandoned and may still be running`,
      undefined,
      { timeoutMs, abandoned: true },
    )
  }
  if (!cancelled && settledAt - start >= timeoutMs) timedOut = true
  if (timedOut) return toolFailure('TOOL_TIMEOUT', `\`${exec.name}\` timed out after ${timeoutMs} ms`, undefined, { timeoutMs })
  return result
}

export default definePlugin({ name, inject, Config, apply })

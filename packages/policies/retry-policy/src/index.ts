import type { Context } from 'cordis'
import { definePlugin, type ToolExecutionResult } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import './meta.js'

export { Config, type ConfigInput } from './config.js'

export const name = 'retry-policy'
export const inject = ['tools']

/** Full jitter: a random wait in [0, min(maxDelayMs, baseDelayMs · 2^(retry-1))). */
export function backoffDelay(retry: number, { baseDelayMs, maxDelayMs }: Pick<Config, 'baseDelayMs' | 'maxDelayMs'>, random = Math.random): number {
  return random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1))
}

/** Only a tool's own failure is worth another try; denials, invalid input, timeouts and aborts are not. */
export function isRetryable(result: ToolExecutionResult): boolean {
  return result.isError && result.error.code === 'TOOL_ERROR' && result.meta?.retryable !== false
}

/** Waits `ms`; resolves false at once if the signal aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const { definitions } = ctx.tools
  const { maxAttempts } = config

  ctx.on('tools/execute', async (exec, next) => {
    if (definitions.get(exec.name)?.idempotent !== true) return next()
    // The signal this layer was given: the caller's, or an outer wrapper's (a whole-call timeout).
    const signal = exec.signal
    let result = await next()
    let attempts = 1
    while (attempts < maxAttempts && isRetryable(result) && !signal.aborted) {
      if (!(await pause(backoffDelay(attempts, config), signal))) break
      result = await next()
      attempts++
    }
    return { ...result, meta: { ...result.meta, attempts } }
  })
}

export default definePlugin({ name, inject, Config, apply })

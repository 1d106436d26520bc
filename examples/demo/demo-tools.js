// A demo-only plugin: one slow tool, so the demo can show timeout-policy at work.
import { z } from 'zod'

export const name = 'demo-tools'
export const inject = ['tools']

// An arrow: cordis calls a `function` declaration with `new`, losing the disposer it returns.
export const apply = (ctx) => {
  ctx.tools.register({
    name: 'wait_for_ci',
    description: 'Waits for the CI run to finish (demo: just sleeps for `ms`).',
    parameters: z.object({ ms: z.number().int().positive().max(60_000) }),
    timeoutMs: 30_000,
    execute: ({ ms }, run) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(`CI finished after ${ms} ms`), ms)
        run.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer)
            reject(run.signal.reason)
          },
          { once: true },
        )
      }),
  })
}

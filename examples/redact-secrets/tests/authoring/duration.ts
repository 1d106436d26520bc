import type { Context } from 'cordis'
import type {} from '@dshkit/tools' // the types of ctx.tools and the tools/* events

export default {
  name: 'duration',
  apply(ctx: Context) {
    // A tools/execute wrapper runs around the body (and around inner wrappers such as retries).
    ctx.on('tools/execute', async (exec, next) => {
      const started = performance.now()
      const result = await next()
      return { ...result, meta: { ...result.meta, durationMs: Math.round(performance.now() - started) } }
    })
  },
}

import type { Context } from 'cordis'
import type {} from '@dshkit/tools' // the types of ctx.tools and the tools/* events

export default {
  name: 'ask-lockfiles',
  inject: ['tools'],
  apply(ctx: Context) {
    ctx.on('tools/pre-execute', async (exec, next) => {
      // Use the footprint the tool declares for the validated input, so any writing tool is covered.
      // (`definitions` is a plain Map: cheaper per call than the `get()` method through cordis's proxy.)
      const declared = ctx.tools.definitions.get(exec.name)?.fsAccess?.(exec.input) ?? []
      const lockfile = declared.find((a) => a.access === 'write' && a.path.endsWith('.lock'))
      if (!lockfile) return next()
      // Let inner listeners speak first: their denial beats our question.
      const inner = await next()
      if (inner.kind === 'deny') return inner
      return { kind: 'ask', reason: `${exec.name} would rewrite the lockfile ${lockfile.path}` }
    })
  },
}

import type { Context } from 'cordis'
import type {} from '@dshkit/tools' // the types of ctx.tools and the tools/* events

export default {
  name: 'install-reminder',
  apply(ctx: Context) {
    ctx.on('tools/post-execute', async (exec, result, next) => {
      const inner = await next()
      const path = (exec.arguments as { path?: unknown })?.path
      if (result.isError || exec.name !== 'fs_write' || typeof path !== 'string' || !path.endsWith('package.json')) return inner
      // Context messages are injected after the batch's results; content stays as inner listeners left it.
      const note = { source: 'install-reminder', content: [{ type: 'text' as const, text: `${path} changed: run pnpm install before testing.` }] }
      return { kind: 'accept', additionalContexts: [note] }
    })
  },
}

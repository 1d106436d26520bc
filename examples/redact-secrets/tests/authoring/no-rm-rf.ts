import type { Context } from 'cordis'
import type {} from '@dshkit/tools' // the types of ctx.tools and the tools/* events
import { z } from 'zod'

/** True when some simple command in `command` is `rm` with both a recursive and a force flag. */
export function isRmRf(command: string): boolean {
  return command.split(/[;&|\n]/).some((part) => {
    const [program, ...words] = part.trim().split(/\s+/)
    const recursive = words.some((w) => /^-[a-zA-Z]*[rR]/.test(w) || w === '--recursive')
    const force = words.some((w) => /^-[a-zA-Z]*f/.test(w) || w === '--force')
    return program === 'rm' && recursive && force
  })
}
export const Config = z.object({ tools: z.array(z.string()).default(['bash']) }).prefault({})

export default {
  name: 'no-rm-rf',
  inject: ['tools'],
  Config,
  // Taking the input type keeps `ctx.plugin(plugin)` type-correct; parsing again is idempotent.
  apply(ctx: Context, config?: z.input<typeof Config>) {
    const { tools } = Config.parse(config)
    // A guard is synchronous and monotonic: it can only deny, and nothing after it can allow.
    ctx.tools.guard((exec) => {
      const command = (exec.arguments as { command?: unknown })?.command
      if (!tools.includes(exec.name) || typeof command !== 'string') return
      if (isRmRf(command)) return `${exec.name}: recursive forced delete (rm -rf) is not allowed here`
    })
  },
}

// Boots a Context with @dshkit/tools and one plugin that registers what a bench needs.
import { Context } from 'cordis'
import Tools from '@dshkit/tools'

export async function withTools(name: string, apply: (ctx: Context) => void): Promise<Context> {
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin({ name, inject: ['tools'], apply })
  return ctx
}

// A consumer that depends on dsh-base alone: its built typings must type every service it provides.
import type { Context } from 'cordis'
import DshBase from '@dshkit/dsh-base'

export async function consumer(ctx: Context) {
  await ctx.plugin(DshBase, { 'fs-sandbox': { roots: ['.'] } })
  const { results } = await ctx.loop.executeToolCalls([{ name: 'fs_read', arguments: { path: 'README.md' } }])
  const text: string | undefined = results[0].content[0]?.type === 'text' ? results[0].content[0].text : undefined
  const events = ctx.session.events()
  const names: string[] = ctx.tools.list().map((tool) => tool.name)
  const stat = await ctx.fs.stat('README.md')
  const spilled = await ctx.spill.put('a long output')
  const pruner = ctx.toolResultPruner
  const approval = ctx.approval
  const shellResult = await ctx.shell.run({ command: 'true' })
  const jobs = ctx.jobs
  // @ts-expect-error a service dsh-base does not provide stays unknown to the type checker
  ctx.notAService
  return { text, events, names, stat, spilled, pruner, approval, shellResult, jobs }
}

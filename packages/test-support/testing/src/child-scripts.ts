/**
 * Source for a worker script (ESM) that must die in the middle of a tool call: registers `quick`
 * and `hang`, plugs agent-loop, runs one `quick` call, then a `hang` call that prints `READY` and never
 * returns, so the test can SIGKILL the process mid-call. Expects `ctx` (a Context with the tools
 * runtime and a session store up), `z` (zod) and `AgentLoop` (@dshkit/agent-loop's default) in scope.
 */
export const hangMidCallScript = `
await ctx.plugin({
  name: 'crash-tools',
  inject: ['tools'],
  apply(ctx) {
    ctx.tools.register({ name: 'quick', description: 'returns at once', parameters: z.object({}), execute: () => 'done' })
    ctx.tools.register({
      name: 'hang', description: 'never returns', parameters: z.object({ path: z.string() }),
      execute: () => {
        process.stdout.write('READY\\n')
        setInterval(() => {}, 1000)
        return new Promise(() => {})
      },
    })
  },
})
await ctx.plugin(AgentLoop)
await ctx.loop.executeToolCalls([{ callId: 'first', name: 'quick', arguments: {} }])
await ctx.loop.executeToolCalls([{ callId: 'stuck', name: 'hang', arguments: { path: 'out.txt' } }])
`

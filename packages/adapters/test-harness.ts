// The composition every adapter's tests drive: shared here so the three adapters are tested against the same thing.
import { Context } from 'cordis'
import DshBase from '@dshkit/dsh-base'
import { onCleanup, overlapProbe, plug, tempDir } from '@dshkit/testing'

/** dsh-base on a temp root (unconfined shell, headless approval; fs_write under `ask/` asks), plus the overlap probe. */
export async function harness() {
  const root = await tempDir('dshkit-adapter-')
  const ctx = new Context()
  onCleanup(() => disposeAll(ctx))
  await plug(ctx, DshBase, {
    'fs-sandbox': { roots: [root] },
    'shell-sandbox': false,
    'shell-local': {},
    'user-approval': { responder: 'headless', grants: false },
    'permission-policy': { rules: [{ tool: 'fs_write', when: { path: '**/ask/**' }, decision: 'ask', reason: 'writes under ask/ need a yes' }] },
  })
  const probe = overlapProbe()
  await plug(ctx, {
    name: 'probe-tools',
    inject: ['tools'],
    apply: (ctx: Context) => {
      for (const tool of probe.tools) ctx.tools.register(tool)
    },
  })
  return { ctx, root, probe }
}

async function disposeAll(ctx: Context) {
  const fibers = [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers]).filter((fiber) => fiber.parent.fiber === ctx.fiber)
  for (const fiber of fibers.reverse()) await fiber.dispose()
}

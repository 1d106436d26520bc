// The composition every adapter's tests drive: shared here so the three adapters are tested against the same thing.
import { Context } from 'cordis'
import { expect } from 'vitest'
import { z } from 'zod'
import DshBase from '@dshkit/dsh-base'
// The loop/lifecycle event's types.
import type {} from '@dshkit/agent-loop'
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

/** One step of two probe writes (w1, w2) and two probe reads (r1, r2) was scheduled as one batch: writes apart, reads together, recorded in model order. */
export function expectStepScheduled(ctx: Context, probe: ReturnType<typeof overlapProbe>) {
  expect(probe.maxInFlight).toEqual({ probe_write: 1, probe_read: 2 })
  expect(ctx.session.events().map((e) => `${e.type} ${'callId' in e ? e.callId : ''}`)).toEqual([
    'tool/call w1',
    'tool/result w1',
    'tool/call w2',
    'tool/result w2',
    'tool/call r1',
    'tool/call r2',
    'tool/result r1',
    'tool/result r2',
  ])
}

/** Registers `finish`, a tool whose call concludes the turn and answers `bye`. */
export function plugFinisher(ctx: Context) {
  return plug(ctx, {
    name: 'finisher',
    inject: ['tools'],
    apply: (ctx: Context) => {
      ctx.tools.register({ name: 'finish', description: 'ends the turn', parameters: z.object({}), execute: (_args, run) => (run.concludeTurn(), 'bye') })
    },
  })
}

/** A kill switch: every call of `tool` is denied and stops the session (as a hook's `continue: false` does). */
export function plugStopper(ctx: Context, tool: string, stop = { reason: 'kill switch', by: 'test-stopper' }) {
  return plug(ctx, {
    name: 'stopper',
    inject: ['tools'],
    apply: (ctx: Context) => {
      ctx.on('tools/pre-execute', async (exec, next) => (exec.name === tool ? { kind: 'deny', reason: 'stopped here', stop } : next()))
    },
  })
}

/**
 * Stands in for a hook bridge (hooks-claude-code answers loop/lifecycle the same way): the first Stop of a turn is
 * blocked with "run the tests first", a prompt holding "secret" is refused. Returns each Stop's stopHookActive.
 */
export async function plugStopGate(ctx: Context) {
  const stops: boolean[] = []
  await plug(ctx, {
    name: 'stop-gate',
    apply: (ctx: Context) =>
      ctx.on('loop/lifecycle', async (event, answer) => {
        if (event.name === 'Stop') stops.push(event.stopHookActive === true)
        if (event.name === 'Stop' && !event.stopHookActive) answer({ block: { reason: 'run the tests first', by: 'gate' } })
        if (event.name === 'UserPromptSubmit' && event.prompt.includes('secret')) answer({ block: { reason: 'no secrets', by: 'gate' } })
      }),
  })
  return stops
}

/** The blocks `media` renders: one of each kind, and the text a text-only framework should give the model for them. */
export const MEDIA = {
  blocks: [
    { type: 'text' as const, text: 'see attached' },
    { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    { type: 'audio' as const, data: Buffer.alloc(12 * 1024).toString('base64'), mimeType: 'audio/wav' },
    { type: 'resource' as const, resource: { uri: 'file:///notes.md', text: '# notes' } },
    { type: 'resource' as const, resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'JVBERg==' } },
    { type: 'resource_link' as const, uri: 'file:///big.log', name: 'big.log' },
  ],
  texts: ['see attached', '[audio audio/wav, 12 KB]', '# notes', '[resource file:///a.pdf application/pdf, 4 B]', '[resource link big.log file:///big.log]'],
}

/** Registers `media`, a tool whose result holds every kind of content block. */
export function plugMedia(ctx: Context) {
  return plug(ctx, {
    name: 'media',
    inject: ['tools'],
    apply: (ctx: Context) => {
      ctx.tools.register({ name: 'media', description: 'mixed content', parameters: z.object({}), execute: () => 'x', render: () => MEDIA.blocks })
    },
  })
}

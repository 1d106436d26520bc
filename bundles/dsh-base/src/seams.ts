import type { Context } from 'cordis'
import { failureOf, fibersUnder } from './fibers.js'

/** The seams dsh-base provides by default: the plugins it plugs for each, the keys that configure them, how to turn them off. */
export const SEAMS = {
  fs: { defaults: ['fs-local'], keys: ['fs-local'], off: '"fs-local": false' },
  spill: { defaults: ['spill-local'], keys: ['spill-local'], off: '"spill-local": false' },
  session: { defaults: ['session', 'session-store-jsonl'], keys: ['session', 'session-store-jsonl', 'log'], off: '"session": false and leave out "log"' },
  approval: { defaults: ['user-approval'], keys: ['user-approval'], off: '"user-approval": false' },
  shell: { defaults: ['shell-sandbox', 'shell-local'], keys: ['shell-sandbox', 'shell-local'], off: '"shell-sandbox": false' },
} as const
export type Seam = keyof typeof SEAMS

const isSeam = (name: string): name is Seam => Object.hasOwn(SEAMS, name)

/** Two plugins provide one seam; says which dsh-base key to set `false` (or to pass yours as `providers.<seam>`). */
export class SeamConflictError extends Error {
  name = 'SeamConflictError'
  constructor(
    readonly seam: Seam,
    readonly plugins: readonly [yours: string, dshBase: string],
  ) {
    super(seamConflictMessage(seam, plugins[0], plugins[1]))
  }
}

export function seamConflictMessage(seam: Seam, yours: string, dshBase: string) {
  return (
    `two providers for the "${seam}" seam: "${yours}" and dsh-base's "${dshBase}"; to use "${yours}", ` +
    `set ${SEAMS[seam].off} in dsh-base's config, or pass it as dsh-base's providers.${seam}`
  )
}

/** Reads cordis' "service "spill" has been registered at <spill-local>" (thrown by the second provider). */
export function parseServiceConflict(error: unknown): { seam: Seam; holder: string } | undefined {
  const match = error instanceof Error && /^service "([^"]+)" has been registered at <([^>]*)>/.exec(error.message)
  if (!match || !isSeam(match[1])) return
  return { seam: match[1], holder: match[2] }
}

/** dsh-base's default provider could not start because another plugin already holds its seam. */
export function conflictOfDefault(plugin: string, failure: unknown): SeamConflictError | undefined {
  const conflict = parseServiceConflict(failure)
  if (!conflict || !(SEAMS[conflict.seam].defaults as readonly string[]).includes(plugin)) return
  return new SeamConflictError(conflict.seam, [conflict.holder, plugin])
}

/**
 * Another plugin that fails because one of dsh-base's providers holds its seam gets the same clear message
 * (its `await ctx.plugin(...)` rejects with it) instead of cordis' bare "has been registered at <spill-local>".
 */
export function nameLaterConflicts(ctx: Context) {
  const own = ctx.fiber
  ctx.on('internal/status', (fiber) => {
    if (fiber.state !== 3 /* FAILED */) return
    const failure = failureOf(fiber)
    const conflict = parseServiceConflict(failure)
    if (!conflict || !(SEAMS[conflict.seam].defaults as readonly string[]).includes(conflict.holder)) return
    const ours = fibersUnder(ctx, own)
    if (fiber === own || ours.includes(fiber)) return
    // Only when the holder is dsh-base's own provider (up), not a sibling's copy of spill-local.
    if (!ours.some((mine) => mine.name === conflict.holder && mine.state === 2 /* ACTIVE */))
      return // The fiber keeps this very object as its error: rewording it is what its awaiting caller sees.
    ;(failure as Error).message = seamConflictMessage(conflict.seam, fiber.name, conflict.holder)
  })
}

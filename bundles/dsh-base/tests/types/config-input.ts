// Type-level tests, checked by `tsc -p tsconfig.test.json` (tests/typecheck.spec.ts runs it).
import type { Context } from 'cordis'
import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import SpillLocal from '@dshkit/spill-local'
import DshBase, { type DshBaseConfigInput } from '../../src/index.js'

declare const ctx: Context

export const valid: DshBaseConfigInput = {
  log: '.dshkit/session.jsonl',
  'fs-sandbox': { roots: ['.'], readOnlyRoots: ['/usr/share'] },
  'permission-policy': { rules: [{ tool: 'fs_write', decision: 'ask', when: { path: '**/package.json' } }] },
  'spill-policy': false,
  providers: { spill: SpillLocal, approval: { plugin: { name: 'mine', apply: () => {} }, config: { any: 'thing' } } },
}

export function typos() {
  // @ts-expect-error a misspelled dsh-base key
  ctx.plugin(DshBase, { 'fs-sandbx': {} })
  // @ts-expect-error a misspelled key of a composed plugin's own config
  ctx.plugin(DshBase, { 'fs-sandbox': { readonlyRoots: ['.'] } })
  // @ts-expect-error a wrong value type inside a composed plugin's config
  ctx.plugin(DshBase, { 'retry-policy': { maxAttempts: '3' } })
  // @ts-expect-error a misspelled key inside a permission rule
  ctx.plugin(DshBase, { 'permission-policy': { rules: [{ tool: 'x', decision: 'deny', reasn: 'typo' }] } })
  // @ts-expect-error a seam dsh-base does not provide
  ctx.plugin(DshBase, { providers: { loop: SpillLocal } })
  // @ts-expect-error a provider must be a plugin
  ctx.plugin(DshBase, { providers: { spill: 'spill-memory' } })
  // `true` is not a config: only `false` leaves a plugin out
  // @ts-expect-error
  ctx.plugin(DshBase, { 'spill-local': true })
}

// A preset nests dsh-base's config under its own key and passes it through.
export const PresetConfig = strictConfig({
  base: DshBase.Config.optional(),
  greeting: z.string().default('hi'),
})
export const Preset = {
  name: 'preset',
  Config: PresetConfig,
  apply: async (ctx: Context, input?: z.input<typeof PresetConfig>) => {
    const config = PresetConfig.parse(input)
    await ctx.plugin(DshBase, config.base)
  },
}

export function preset() {
  ctx.plugin(Preset, { base: { 'fs-sandbox': { roots: ['.'] } } })
  // @ts-expect-error a typo nested in the preset's dsh-base config is still a compile error
  ctx.plugin(Preset, { base: { 'fs-sandbox': { readonlyRoots: ['.'] } } })
}

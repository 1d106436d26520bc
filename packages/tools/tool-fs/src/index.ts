import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import type {} from '@dshkit/fs'
import { Config } from './config.js'
import { fsTools } from './tools.js'
import { pinnedPathCheck, type ChangeHooks } from './changes.js'

export { fsTools, describeSlice, describeEntries } from './tools.js'
export { sha256, pinnedPathCheck, noHooks, type ChangeHooks } from './changes.js'
// Declared by the fs seam (fs-checkpoint and shells emit and read it too); re-exported where it was first.
export type { FsChange } from '@dshkit/fs'
export type { FsEditInput, FsListInput, FsReadInput, FsWriteInput } from './inputs.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'tool-fs'
export const inject = ['tools', 'fs']

export const apply = (ctx: Context, _config?: Config) => {
  const fs = ctx.fs
  // The session is optional: looked up at call time, so tool-fs works (and records nothing) without one.
  const hooks: ChangeHooks = {
    beforeChange: (change) => ctx.serial('fs/before-change', change),
    record: async (event) => void (await ctx.get('session')?.append(event as any)),
    recording: () => !!ctx.get('session'),
  }
  fs.addCheck(pinnedPathCheck)
  for (const def of fsTools(() => fs, hooks)) ctx.tools.register(def)
}

export default definePlugin({ name, inject, Config, apply })

import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import type {} from '@dshkit/fs'
import { Config } from './config.js'
import { fsTools } from './tools.js'

export { fsTools, describeSlice, describeEntries } from './tools.js'
export type { FsEditInput, FsListInput, FsReadInput, FsWriteInput } from './inputs.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'tool-fs'
export const inject = ['tools', 'fs']

// An arrow: cordis calls a `function` declaration with `new` and would lose a returned disposer.
export const apply = (ctx: Context, _config?: Config) => {
  // Held once: going through the context proxy on every call costs more than the call itself.
  const fs = ctx.fs
  for (const def of fsTools(() => fs)) ctx.tools.register(def)
}

export default definePlugin({ name, inject, Config, apply })

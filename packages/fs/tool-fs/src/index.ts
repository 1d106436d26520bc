import type { Context } from 'cordis'
import { z } from 'zod'
import type {} from '@dshkit/fs'
import type {} from '@dshkit/tools'
import { fsTools } from './tools.js'

export { fsTools, describeSlice, describeEntries } from './tools.js'
export type { FsEditInput, FsListInput, FsReadInput, FsWriteInput } from './inputs.js'

export const name = 'tool-fs'
export const inject = ['tools', 'fs']

// No options: paths resolve against the fs provider's cwd, and file I/O has no deadline by design.
export const Config = z.strictObject({}, {
  error: (issue) => issue.code === 'unrecognized_keys'
    ? `tool-fs takes no options (got ${issue.keys.join(', ')}); set cwd and maxReadBytes on fs-local`
    : undefined,
}).prefault({})
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

export function apply(ctx: Context, _config?: ConfigInput) {
  // Held once: going through the context proxy on every call costs more than the call itself.
  const fs = ctx.fs
  for (const def of fsTools(() => fs)) ctx.tools.register(def)
}

export default { name, inject, Config, apply }

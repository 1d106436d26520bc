import { relative, resolve, sep } from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import { isCallOf, type FsAccess } from '@dshkit/tools'
import { strictConfig } from '@dshkit/common'
import type {} from '@dshkit/tool-fs' // its ToolInputs (fs_write's input type for isCallOf)

const prefix = z.string().min(1, 'a path prefix must not be empty')

export const name = 'protect-paths'
export const inject = ['tools']
export const Config = strictConfig({
  deny: z.array(prefix).default([]).describe('Workspace-relative prefixes no tool may read or write.'),
  askWrites: z.array(prefix).default([]).describe('Workspace-relative prefixes where a write asks for approval first.'),
  maxWriteChars: z.number().int().positive().optional().describe('An fs_write with more characters than this asks first.'),
}).prefault({})
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

/** `under('src', 'src/a.ts')`: the path is the prefix or inside it (both workspace-relative). */
function under(prefix: string, path: string): boolean {
  const clean = prefix.replace(/^\.\//, '').replace(/\/+$/, '')
  return path === clean || path.startsWith(clean + '/')
}

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const definitions = ctx.tools.definitions
  ctx.on('tools/pre-execute', async (exec, next) => {
    // The footprint the tool declares for the parsed input, so any file tool is covered, not only fs_*.
    const declared: FsAccess[] = definitions.get(exec.name)?.fsAccess?.(exec.input) ?? []
    if (!declared.length) return next()
    const cwd = ctx.get('fs')?.cwd ?? process.cwd()
    const paths = declared.map(({ path, access }) => ({ access, path: relative(cwd, resolve(cwd, path)).split(sep).join('/') }))
    const denied = paths.find(({ path }) => config.deny.some((p) => under(p, path)))
    // A denial needs nobody else's opinion.
    if (denied) return { kind: 'deny', reason: `${exec.name} may not touch ${denied.path}: it is under a protected path` }
    const inner = await next()
    if (inner.kind !== 'allow') return inner
    const guarded = paths.find(({ path, access }) => access === 'write' && config.askWrites.some((p) => under(p, path)))
    if (guarded) return { kind: 'ask', reason: `${exec.name} would write ${guarded.path}` }
    // isCallOf narrows exec.input to fs_write's parsed input (tool-fs declares it in ToolInputs).
    if (config.maxWriteChars !== undefined && isCallOf(exec, 'fs_write') && exec.input.content.length > config.maxWriteChars) {
      return { kind: 'ask', reason: `fs_write of ${exec.input.content.length} characters to ${exec.input.path}` }
    }
    return inner
  })
}

export default { name, inject, Config, apply }

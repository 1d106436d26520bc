import nodePath from 'node:path'
import type { Context } from 'cordis'
import type { FsService } from '@dshkit/fs'
import { definePlugin, type FsAccess, type PreToolDecision, type ToolDefinition, type ToolExecution } from '@dshkit/tools'
import { Sandbox } from '@dshkit/workspace'
import { Config, type ConfigInput } from './config.js'

/** @deprecated import it from `@dshkit/workspace`, where the rules live */
export { Sandbox, type SandboxRules } from '@dshkit/workspace'
export { Config, type ConfigInput } from './config.js'

export const name = 'fs-sandbox'
export const inject = ['tools']

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const sandbox = new Sandbox(config)
  const logger = ctx.logger('fs-sandbox')
  sandbox.ready.then(undefined, (error) => logger.warn('a sandbox root could not be resolved; every file access will be denied: %s', error))
  const { definitions } = ctx.tools
  const base = nodePath.resolve(config.roots[0] ?? process.cwd())
  // A command may rename a folder above a file it could not see, so no glob matches it any more.
  ctx.on('fs-sandbox/hidden', (identities) => sandbox.coverMoved(identities))

  // Outermost, so no listener that short-circuits with `allow` can skip containment.
  ctx.on(
    'tools/pre-execute',
    async (exec, next) => {
      const def = definitions.get(exec.name)
      if (!def?.fsAccess) return next()
      const declared = declaredAccess(def, exec)
      if (typeof declared === 'string') return deny(declared)
      const fs = ctx.get('fs') as FsService | undefined
      for (const { path, access } of declared) {
        const reason = await judgeDeclaredSafely(sandbox, path, access, () => resolveDeclared(fs, base, path))
        if (reason) return deny(reason)
      }
      return next()
    },
    { prepend: true },
  )

  // The same rules again inside the seam, at the moment of every operation (and on its descriptor).
  ctx.inject(['fs'], (ctx) => {
    ctx.fs.addCheck((request) => sandbox.enforce(request.path, request.path, request.realPath, request.access))
  })
}

function deny(reason: string): PreToolDecision {
  return { kind: 'deny', reason }
}

/** Where the fs provider would look; without one, against the first root. */
function resolveDeclared(fs: FsService | undefined, base: string, path: string) {
  if (fs && !path.includes('\0')) return fs.resolve(path)
  return nodePath.resolve(base, path)
}

async function judgeDeclaredSafely(sandbox: Sandbox, path: string, access: FsAccess['access'], resolve: () => string) {
  try {
    return await sandbox.judgeDeclared(path, resolve(), access)
  } catch (error) {
    return `sandbox denied access to ${JSON.stringify(path)}: ${error instanceof Error ? error.message : error}`
  }
}

/** The footprint a tool declares for the input the registry validated (`exec.input`), or a reason to deny (fail closed). */
function declaredAccess(def: ToolDefinition, exec: ToolExecution): FsAccess[] | string {
  if (exec.input === undefined) return `sandbox denied ${exec.name}: its arguments were not validated, so its file access cannot be known`
  let declared: unknown
  try {
    declared = def.fsAccess!(exec.input)
  } catch (error) {
    return `sandbox denied ${exec.name}: fsAccess() failed, so its file access cannot be known (${error instanceof Error ? error.message : error})`
  }
  if (!Array.isArray(declared)) return `sandbox denied ${exec.name}: fsAccess() must return an array of { path, access }`
  for (const item of declared) {
    if (typeof item?.path !== 'string' || (item.access !== 'read' && item.access !== 'write')) {
      return `sandbox denied ${exec.name}: fsAccess() returned ${JSON.stringify(item)}, not { path: string, access: 'read' | 'write' }`
    }
  }
  return declared as FsAccess[]
}

export default definePlugin({ name, inject, Config, apply })

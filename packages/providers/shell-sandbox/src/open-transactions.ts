import nodePath from 'node:path'
import type { Context } from 'cordis'
import type { Sandbox } from '@dshkit/workspace'
import { commandDefaults } from '@dshkit/shell-local'
import { DEFAULT_LIMITS, type ResourceLimits, startProcess } from '@dshkit/process'
import { resolveRealPath } from '@dshkit/fs'
import { launchArgs, sandboxFlags, type SandboxLayout } from './args.js'
import { nulTerminated } from './bytes.js'
import type { Config } from './config.js'
import { removeLeftovers } from './leftovers.js'
import { startTransactions, type Transactions } from './transaction.js'

const NO_LIMITS = Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((name) => [name, false])) as unknown as ResourceLimits

export interface TransactionSetup {
  sandbox: Sandbox
  roots: string[]
  cwd: string
  shell: string
  bwrapPath: string
  probeLayout: SandboxLayout
}

/** Transaction mode: the copy-on-write view holder, tried once with `true`; leftovers of an interrupted apply removed. */
export async function openTransactions(ctx: Context, config: Config, setup: TransactionSetup): Promise<{ transactions: Transactions } | { failure: string }> {
  const { sandbox, roots, cwd, shell, bwrapPath, probeLayout } = setup
  const started = await startTransactions({
    roots,
    limits: { maxBytes: config.maxChangeBytes, maxFiles: config.maxChangedFiles },
    // fs-sandbox's judgement of a write (by the folder's real path, so a symlink is judged as itself, not its target),
    // then whoever listens to `shell/change` (permission-policy's rules on writes), through cordis.
    judge: async (path, change, spec) =>
      (await sandbox.judge(path, path, nodePath.join(await resolveRealPath(nodePath.dirname(path)), nodePath.basename(path)), 'write')) ??
      ((await ctx.serial('shell/change', { path, change, command: spec.command, cwd: spec.cwd ?? cwd })) || undefined),
    trial: (overlay) => {
      const view = overlay.open()
      const flags = sandboxFlags({ ...probeLayout, readOnlyRoots: [], sources: probeLayout.roots.map((root) => overlay.sourceOf(view, root)) })
      const launch = { file: bwrapPath, args: launchArgs(shell, 'true'), fd3: nulTerminated(flags), env: {} }
      // The trial tests the view, not the limits: a limit the system cannot grant is each command's own result.
      const defaults = { ...commandDefaults(config), limits: NO_LIMITS }
      const run = startProcess({ spec: {}, cwd, sandboxed: true, defaults, launch: () => overlay.wrap(view, launch) })
      return run.done.then(async (result) => {
        await overlay.release(view)
        // A failed trial says why on stderr (the view's own setup failure first).
        if (result.exitCode === 0) return undefined
        return result.error ?? (result.stderr.text.trim().split('\n').at(-1) || `the trial run exited with code ${result.exitCode}`)
      })
    },
  })
  if ('failure' in started) return started
  ctx.effect(() => () => started.overlay.close(), 'shell-sandbox copy-on-write holder')
  // A crash mid-apply (kill -9) leaves each file either old or new, and at most one temp file beside it per file: removed here.
  const leftovers = removeLeftovers(roots, config.denyScanLimit)
  if (leftovers.length)
    ctx.logger.warn(
      `removed ${leftovers.length} temp file(s) an interrupted apply left: ${leftovers.slice(0, 5).join(', ')}${leftovers.length > 5 ? ', …' : ''}`,
    )
  return { transactions: started.transactions }
}

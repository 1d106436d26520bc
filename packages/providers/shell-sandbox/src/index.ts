import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import nodePath from 'node:path'
import type { Context } from 'cordis'
import { Sandbox } from '@dshkit/workspace'
import { baseEnvironment, commandDefaults, isDirectory } from '@dshkit/shell-local'
import { definePlugin } from '@dshkit/tools'
import { DEFAULT_LIMITS, type ResourceLimits, startProcess } from '@dshkit/process'
import { resolveRealPath } from '@dshkit/fs'
import { launchArgs, sandboxFlags } from './args.js'
import { bytesOf, nulTerminated } from './bytes.js'
import { Config, type ConfigInput } from './config.js'
import { denyMatcher } from './deny-matcher.js'
import { FollowedRoot } from './follow.js'
import { removeLeftovers } from './leftovers.js'
import { findBubblewrap } from './probe.js'
import { findProgram } from './program.js'
import { SandboxShell } from './service.js'
import { startTransactions, type Transactions } from './transaction.js'
import { UnavailableShell } from './unavailable.js'

const NO_LIMITS = Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((name) => [name, false])) as unknown as ResourceLimits

export { SandboxShell, type SandboxShellOptions } from './service.js'
export { UnavailableShell } from './unavailable.js'
export { sandboxFlags, type SandboxLayout } from './args.js'
export { denyMatcher } from './deny-matcher.js'
export { findHidden, DenyScanLimitError, type HiddenPaths } from './hidden.js'
export { MAX_HIDDEN_MOUNTS } from './mounts.js'
export { Config, type ConfigInput } from './config.js'
export { changeSet, type Change } from './change-set.js'
export { judgeAndApply, type JudgeWrite } from './apply.js'

export const name = 'shell-sandbox'

/** Starting fails with this (one line) when bubblewrap cannot confine commands: never an unconfined fallback. */
export class ShellSandboxUnavailableError extends Error {
  name = 'ShellSandboxUnavailableError'
}

export const apply = async (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  // The workspace's rules object, fs-sandbox's too: the same roots (as real paths) and the same deny matching.
  const sandbox = new Sandbox(config)
  await sandbox.ready
  const { roots, readOnlyRoots } = sandbox.resolvedRoots()
  const unavailable = (why: string) => new ShellSandboxUnavailableError(`shell-sandbox cannot start: ${why}`)
  for (const root of [...roots, ...readOnlyRoots]) {
    if (!isDirectory(root))
      throw unavailable(`the sandbox root ${root} is not an existing directory (roots come from fs-sandbox's config); create it or fix the path`)
  }
  if (!roots.length) throw unavailable('there are no writable roots; give fs-sandbox at least one root')
  const shell = config.shell ?? (findProgram('/bin/bash') ? '/bin/bash' : '/bin/sh')
  const cwd = nodePath.resolve(roots[0], config.cwd ?? '.')

  const empty = mkdtempSync(nodePath.join(tmpdir(), 'dshkit-shell-sandbox-'))
  ctx.effect(() => () => rmSync(empty, { recursive: true, force: true }), 'shell-sandbox empty mount sources')
  const emptyDir = nodePath.join(empty, 'dir')
  const emptyFile = nodePath.join(empty, 'file')
  mkdirSync(emptyDir, { mode: 0o555 })
  writeFileSync(emptyFile, '', { mode: 0o444 })

  const layout = {
    roots: roots.map(bytesOf),
    emptyDir: bytesOf(emptyDir),
    emptyFile: bytesOf(emptyFile),
    network: config.network,
    keepFromRun: config.network ? resolverDirs().map(bytesOf) : [],
  }
  const probeLayout = { ...layout, readOnlyRoots: readOnlyRoots.map(bytesOf), hiddenDirs: [], hiddenFiles: [], cwd: bytesOf(cwd) }
  const bwrap = await findBubblewrap(config.bwrapPath, sandboxFlags(probeLayout), shell)
  if ('failure' in bwrap && config.whenUnavailable === 'fail-start')
    throw unavailable(
      `${bwrap.failure}. Commands are never run unconfined: fix this, or turn the shell off ("shell-sandbox": false), let the other tools run without it (whenUnavailable: refuse-commands) or choose an unconfined shell explicitly ("shell-local")`,
    )
  if ('failure' in bwrap) {
    ctx.logger.warn(`every command will be refused, none runs unconfined: ${bwrap.failure}`)
    new UnavailableShell(ctx, cwd, commandDefaults(config), `the sandboxed shell is unavailable: ${bwrap.failure}`)
    return
  }

  // Held open for the plugin's life: the protection follows each folder, not its path.
  const followed: FollowedRoot[] = []
  ctx.effect(
    () => () => {
      for (const root of followed) root.close()
    },
    'shell-sandbox read-only root descriptors',
  )
  for (const root of readOnlyRoots) {
    try {
      followed.push(new FollowedRoot(bytesOf(root)))
    } catch (error) {
      throw unavailable(
        `the read-only root ${root} cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)}); make it readable or fix the path`,
      )
    }
  }
  let transactions: Transactions | undefined
  if (config.changes === 'transaction') {
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
        const flags = sandboxFlags({ ...probeLayout, readOnlyRoots: [], sources: layout.roots.map((root) => overlay.sourceOf(view, root)) })
        const launch = { file: bwrap.path, args: launchArgs(shell, 'true'), fd3: nulTerminated(flags), env: {} }
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
    if ('failure' in started) {
      if (config.whenUnavailable === 'fail-start') throw unavailable(started.failure)
      ctx.logger.warn(`every command will be refused, none runs outside a transaction: ${started.failure}`)
      new UnavailableShell(ctx, cwd, commandDefaults(config), `the sandboxed shell is unavailable: ${started.failure}`)
      return
    }
    ctx.effect(() => () => started.overlay.close(), 'shell-sandbox copy-on-write holder')
    // A crash mid-apply (kill -9) leaves each file either old or new, and at most one temp file beside it per file: removed here.
    const leftovers = removeLeftovers(roots, config.denyScanLimit)
    if (leftovers.length)
      ctx.logger.warn(
        `removed ${leftovers.length} temp file(s) an interrupted apply left: ${leftovers.slice(0, 5).join(', ')}${leftovers.length > 5 ? ', …' : ''}`,
      )
    transactions = started.transactions
  }
  const absoluteGlobs = config.deny.filter((glob) => nodePath.isAbsolute(glob))
  new SandboxShell(ctx, {
    bwrapPath: bwrap.path,
    shell,
    cwd,
    denyScanLimit: config.denyScanLimit,
    layout,
    readOnlyRoots: followed,
    absoluteGlobs,
    env: baseEnvironment(config.inheritEnv, config.env),
    defaults: commandDefaults(config),
    deniedBy: (path) => sandbox.deniedBy(path),
    covers: denyMatcher(config.deny, [...roots, ...readOnlyRoots]),
    hid: (identities) => {
      // Our own judge of changes denies them wherever a command moved them, as fs-sandbox does.
      sandbox.coverMoved(identities)
      ctx.emit('fs-sandbox/hidden', identities)
    },
    transactions,
  })
}

/** With the network on, DNS still has to work when /etc/resolv.conf points into /run (systemd-resolved). */
function resolverDirs(): string[] {
  try {
    const real = realpathSync('/etc/resolv.conf')
    return real.startsWith('/run/') ? [nodePath.dirname(real)] : []
  } catch {
    return []
  }
}

export default definePlugin({ name, Config, apply })

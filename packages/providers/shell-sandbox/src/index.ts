import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import nodePath from 'node:path'
import type { Context } from 'cordis'
import { Sandbox } from '@dshkit/workspace'
import { baseEnvironment, commandDefaults, isDirectory } from '@dshkit/shell-local'
import { definePlugin } from '@dshkit/tools'
import { sandboxFlags } from './args.js'
import { bytesOf } from './bytes.js'
import { Config, type ConfigInput } from './config.js'
import { denyMatcher } from './deny-matcher.js'
import { FollowedRoot } from './follow.js'
import { findBubblewrap } from './probe.js'
import { findProgram } from './program.js'
import { SandboxShell } from './service.js'
import { openTransactions } from './open-transactions.js'
import type { Transactions } from './transaction.js'
import { UnavailableShell } from './unavailable.js'

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
  const { roots, readOnlyRoots } = checkedRoots(sandbox)
  const shell = config.shell ?? (findProgram('/bin/bash') ? '/bin/bash' : '/bin/sh')
  const cwd = nodePath.resolve(roots[0], config.cwd ?? '.')
  const { emptyDir, emptyFile } = emptyMountSources(ctx)
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
  if ('failure' in bwrap) return refuseCommands(ctx, config, cwd, `every command will be refused, none runs unconfined: ${bwrap.failure}`, bwrap.failure)
  const followed = followReadOnlyRoots(ctx, readOnlyRoots)
  let transactions: Transactions | undefined
  if (config.changes === 'transaction') {
    const started = await openTransactions(ctx, config, { sandbox, roots, cwd, shell, bwrapPath: bwrap.path, probeLayout })
    if ('failure' in started) {
      if (config.whenUnavailable === 'fail-start') throw unavailable(started.failure)
      return refuseCommands(ctx, config, cwd, `every command will be refused, none runs outside a transaction: ${started.failure}`, started.failure)
    }
    transactions = started.transactions
  }
  new SandboxShell(ctx, {
    bwrapPath: bwrap.path,
    shell,
    cwd,
    denyScanLimit: config.denyScanLimit,
    layout,
    readOnlyRoots: followed,
    absoluteGlobs: config.deny.filter((glob) => nodePath.isAbsolute(glob)),
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

const unavailable = (why: string) => new ShellSandboxUnavailableError(`shell-sandbox cannot start: ${why}`)

/** whenUnavailable: refuse-commands — the shell answers every command with why, and nothing runs. */
function refuseCommands(ctx: Context, config: Config, cwd: string, warning: string, failure: string) {
  ctx.logger.warn(warning)
  new UnavailableShell(ctx, cwd, commandDefaults(config), `the sandboxed shell is unavailable: ${failure}`)
}

/** The roots as real paths, each an existing directory, with at least one writable. */
function checkedRoots(sandbox: Sandbox) {
  const { roots, readOnlyRoots } = sandbox.resolvedRoots()
  for (const root of [...roots, ...readOnlyRoots]) {
    if (!isDirectory(root))
      throw unavailable(`the sandbox root ${root} is not an existing directory (roots come from fs-sandbox's config); create it or fix the path`)
  }
  if (!roots.length) throw unavailable('there are no writable roots; give fs-sandbox at least one root')
  return { roots, readOnlyRoots }
}

/** An empty read-only folder and file, mounted over what deny globs hide; removed with the plugin. */
function emptyMountSources(ctx: Context) {
  const empty = mkdtempSync(nodePath.join(tmpdir(), 'dshkit-shell-sandbox-'))
  ctx.effect(() => () => rmSync(empty, { recursive: true, force: true }), 'shell-sandbox empty mount sources')
  const emptyDir = nodePath.join(empty, 'dir')
  const emptyFile = nodePath.join(empty, 'file')
  mkdirSync(emptyDir, { mode: 0o555 })
  writeFileSync(emptyFile, '', { mode: 0o444 })
  return { emptyDir, emptyFile }
}

/** Held open for the plugin's life: the protection follows each folder, not its path. */
function followReadOnlyRoots(ctx: Context, readOnlyRoots: string[]): FollowedRoot[] {
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
  return followed
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

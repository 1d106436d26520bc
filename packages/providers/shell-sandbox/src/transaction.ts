import { readdirSync, statfsSync } from 'node:fs'
import type { ProcessLaunch, ProcessResult, RunningProcess } from '@dshkit/process'
import type { ShellChangeKind, ShellChanges, ShellProcess, ShellResult, ShellSpec } from '@dshkit/shell'
import { type ApplyOptions, type JudgeWrite, judgeAndApply } from './apply.js'

import { type Change, changeSet } from './change-set.js'
import { type CallView, OverlayHost, SETUP_FAILURE, outermost, overlayPathProblem } from './overlay.js'
import { findProgram } from './program.js'

/** Judges one change of the call `spec` (its cwd absolute): why it is refused, or undefined. */
export type JudgeChange = (path: string, change: ShellChangeKind, spec: ShellSpec) => Promise<string | undefined>

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Every call as a transaction: it runs against a copy-on-write view of the roots, and when it ends its
 * change set is judged path by path and the allowed changes land; the result lists applied and refused ones.
 */
export class Transactions {
  constructor(
    private readonly overlay: OverlayHost,
    private readonly judge: JudgeChange,
  ) {}

  /**
   * `start` launches the command through `wrap`, which builds bubblewrap's launch with each root bound from the
   * call's view (`source`) and runs it in the view's namespace; `done` settles once the changes are judged and applied.
   */
  spawn(spec: ShellSpec, start: (wrap: (build: (source: (root: string) => string) => ProcessLaunch) => ProcessLaunch) => RunningProcess): ShellProcess {
    let view: CallView
    try {
      view = this.overlay.open()
    } catch (error) {
      return start(() => {
        throw error
      })
    }
    const inner = start((build) =>
      this.overlay.wrap(
        view,
        build((root) => this.overlay.sourceOf(view, root)),
      ),
    )
    const done = inner.done.then((result) => this.commit(view, result, spec, inner.startedAt))
    return {
      pid: inner.pid,
      startedAt: inner.startedAt,
      done,
      onOutput: (listener) => inner.onOutput(listener),
      kill: (reason) => inner.kill(reason).then(() => done),
    }
  }

  private async commit(view: CallView, result: ProcessResult, spec: ShellSpec, since: number): Promise<ShellResult> {
    try {
      if (result.error) return result
      const setup = result.exitCode === 125 ? result.stderr.text.split('\n').find((line) => line.startsWith(SETUP_FAILURE)) : undefined
      if (setup) return { ...result, error: `could not prepare the command: ${setup.slice(SETUP_FAILURE.length)}` }
      const judge: JudgeWrite = (path, change) => this.judge(path, change, spec)
      return { ...result, changes: await this.land(view, judge, { beforeChange: spec.beforeChange, since }) }
    } finally {
      // Unmounting waits for the kernel (an RCU grace period): the result does not wait for it.
      void this.overlay.release(view)
    }
  }

  /** Reads every root's change set first (so a bound refuses all of them), then judges and applies them. */
  private async land(view: CallView, judge: JudgeWrite, options: ApplyOptions): Promise<ShellChanges> {
    const { maxBytes, maxFiles } = this.overlay.limits
    const none = (error: string): ShellChanges => ({ applied: [], refused: [], error: `${error}: none of its changes were applied` })
    try {
      const fs = statfsSync(view.seen)
      // The tmpfs is exactly that large: full means the command hit the bound (it saw ENOSPC) and what it wrote is incomplete.
      if ((fs.blocks - fs.bfree) * fs.bsize >= maxBytes)
        return none(`the command wrote ${maxBytes} bytes or more, the most one call may change (maxChangeBytes)`)
      if (fs.ffree === 0) return none(`the command made more than ${maxFiles} files (maxChangedFiles)`)
      const sets: { root: string; changes: Change[] }[] = []
      let budget = maxFiles
      for (const [i, root] of this.overlay.roots.entries()) {
        if (!readdirSync(view.upper(i)).length) continue
        const changes = changeSet(root, view.upper(i), view.merged(i), budget)
        budget -= changes.length
        sets.push({ root, changes })
      }
      const out: ShellChanges = { applied: [], refused: [] }
      for (const { root, changes } of sets) {
        const done = await judgeAndApply(root, changes, judge, options)
        out.applied.push(...done.applied)
        out.refused.push(...done.refused)
      }
      return out
    } catch (error) {
      return none(messageOf(error))
    }
  }
}

/** What starting transaction mode needs; `trial` runs `true` on a view and answers its failure, if any. */
export interface TransactionStart {
  roots: readonly string[]
  limits: { maxBytes: number; maxFiles: number }
  judge: JudgeChange
  trial: (overlay: OverlayHost) => Promise<string | undefined>
}

/** Transaction mode, or the one reason it cannot be had here (the caller fails closed with it). */
export async function startTransactions({
  roots,
  limits,
  judge,
  trial,
}: TransactionStart): Promise<{ transactions: Transactions; overlay: OverlayHost } | { failure: string }> {
  const fix = "; or run commands straight in the roots by setting shell-sandbox's changes: 'direct'"
  if (process.getuid?.() !== 0)
    return { failure: `transaction mode mounts overlayfs in a private mount namespace, which needs root here (running as uid ${process.getuid?.()})${fix}` }
  const nsenter = findProgram('nsenter')
  const unshare = findProgram('unshare')
  if (!nsenter || !unshare) return { failure: `transaction mode needs nsenter and unshare (util-linux), not found on PATH${fix}` }
  const overlaid = outermost(roots)
  for (const root of overlaid) {
    const problem = overlayPathProblem(root)
    if (problem) return { failure: `${problem}${fix}` }
  }
  const overlay = new OverlayHost(overlaid, { nsenter, unshare }, limits)
  try {
    await overlay.start()
    const failed = await trial(overlay)
    if (failed) throw new Error(failed)
  } catch (error) {
    overlay.close()
    return { failure: `no copy-on-write view of the roots could be made: ${messageOf(error)}${fix}` }
  }
  return { transactions: new Transactions(overlay, judge), overlay }
}

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import nodePath from 'node:path'
import type { ProcessLaunch } from '@dshkit/process'

/** What one call's copy-on-write view is made of, on the host and as Node reads it. */
export interface CallView {
  /** The per-call tmpfs mount point (a host folder; the tmpfs exists only in the holder's namespace). */
  mountPoint: string
  /** The same folder as Node reads it: through the holder's namespace (`/proc/<holder>/root/…`). */
  seen: string
  /** One layer per overlaid root, index-aligned with `OverlayHost.roots`: `u<i>` (what the call wrote), `m<i>` (its merged view after it). */
  upper(i: number): string
  merged(i: number): string
}

export interface OverlayLimits {
  maxBytes: number
  maxFiles: number
}

// The wrapper: in the holder's namespace, mount the call's bounded tmpfs, then in a private namespace of its
// own put an overlay over each root and exec bubblewrap, which binds the merged views as before.
const WRAPPER = [
  'fail() { echo "dshkit-txn: $*" >&2; exit 125; }',
  't=$1 size=$2 inodes=$3; shift 3',
  'mount -t tmpfs -o "size=$size,nr_inodes=$inodes,mode=0700" dshkit-txn "$t" || fail "could not mount the change tmpfs"',
  'i=0; for r in "$@"; do [ "$r" = -- ] && break; mkdir "$t/u$i" "$t/w$i" "$t/m$i" || fail "could not make the layers"; i=$((i+1)); done',
  'exec unshare -m --propagation private /bin/sh -c \'t=$1; shift; i=0; while [ "$1" != -- ]; do mount -t overlay dshkit-txn -o "lowerdir=$1,upperdir=$t/u$i,workdir=$t/w$i" "$1" || { echo "dshkit-txn: could not mount the copy-on-write view of $1" >&2; exit 125; }; i=$((i+1)); shift; done; shift; exec "$@"\' sh "$t" "$@"',
].join('\n')

// The holder keeps one mount namespace alive for the plugin's life, so a call's tmpfs outlives the call;
// it ends at EOF on its stdin, so it goes when the process hosting it goes (even by SIGKILL).
const HOLDER = [
  'echo ready',
  'while read -r op; do',
  '  case $op in',
  '    v) read -r target; read -r upper; read -r lower; mount -t overlay dshkit-view -o "ro,lowerdir=$upper:$lower" "$target" >&2; echo $? ;;',
  '    u) read -r target; umount -R "$target" >&2; echo $? ;;',
  '    *) echo 2 ;;',
  '  esac',
  'done',
].join('\n')

/** Marks a launch that failed before the command ran: the copy-on-write view could not be made. */
export const SETUP_FAILURE = 'dshkit-txn: '

/**
 * Copy-on-write views of the writable roots through kernel overlayfs, one per call. bubblewrap 0.8 has no
 * `--overlay`, so the overlay is mounted in a private mount namespace (`unshare -m`) just before bwrap
 * execs; the upper layer lives on a size- and inode-bounded tmpfs held in the holder's namespace.
 */
export class OverlayHost {
  private holder?: ChildProcess
  private readonly base: string
  private readonly answers: ((status: number) => void)[] = []
  private calls = 0
  private gone?: string

  constructor(
    /** The roots overlaid (those not inside another root), real paths. */
    readonly roots: readonly string[],
    private readonly programs: { nsenter: string; unshare: string; setpriv: string },
    readonly limits: OverlayLimits,
  ) {
    this.base = mkdtempSync(nodePath.join(tmpdir(), 'dshkit-txn-'))
  }

  /** Starts the holder; resolves once its namespace exists. */
  start(): Promise<void> {
    const holder = spawn(this.programs.unshare, ['-m', '--propagation', 'private', '/bin/sh', '-c', HOLDER], { stdio: ['pipe', 'pipe', 'pipe'] })
    this.holder = holder
    holder.stdin!.on('error', () => {})
    holder.stderr!.resume()
    return new Promise((resolve, reject) => {
      let ready = false
      let buffer = ''
      holder.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString()
        for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
          const line = buffer.slice(0, at)
          buffer = buffer.slice(at + 1)
          if (!ready && line === 'ready') {
            ready = true
            resolve()
          } else this.answers.shift()?.(Number(line))
        }
      })
      holder.on('error', (error) => reject(error))
      holder.on('exit', (code) => {
        this.gone = `the namespace holder exited (code ${code})`
        for (const answer of this.answers.splice(0)) answer(1)
        if (!ready) reject(new Error(`${this.programs.unshare} -m could not make a mount namespace (exit code ${code})`))
      })
    })
  }

  /** A fresh view for one call: its mount point exists on the host; the wrapper mounts the tmpfs on it. */
  open(): CallView {
    if (this.gone || !this.holder?.pid) throw new Error(`the copy-on-write view is unavailable: ${this.gone ?? 'not started'}`)
    const mountPoint = nodePath.join(this.base, String(++this.calls))
    mkdirSync(mountPoint, { mode: 0o700 })
    const seen = `/proc/${this.holder.pid}/root${mountPoint}`
    return { mountPoint, seen, upper: (i) => `${seen}/u${i}`, merged: (i) => `${seen}/m${i}` }
  }

  /** Wraps bubblewrap's launch so it runs on the call's copy-on-write view. */
  wrap(view: CallView, launch: ProcessLaunch): ProcessLaunch {
    const { maxBytes, maxFiles } = this.limits
    // Room for the layer folders on top of what the command may write.
    const inodes = maxFiles + 4 * this.roots.length + 16
    // The parent-death signal is set first and kept through every exec up to bwrap (which sets its own):
    // if the host dies while the view is being mounted, the launch dies too instead of starting orphaned.
    const args = ['--pdeathsig', 'KILL', this.programs.nsenter, `--mount=/proc/${this.holder!.pid}/ns/mnt`, '--', '/bin/sh', '-c', WRAPPER]
    const wrapper = ['sh', view.mountPoint, String(maxBytes), String(inodes), ...this.roots, '--', launch.file, ...launch.args]
    return { ...launch, file: this.programs.setpriv, args: [...args, ...wrapper] }
  }

  /** Mounts the read-only merged view of root `i` (the call's layer over the root): what the command left, whiteouts and opaque folders applied by the kernel. */
  mountMerged(view: CallView, i: number): Promise<boolean> {
    return this.ask(`v\n${view.mountPoint}/m${i}\n${view.mountPoint}/u${i}\n${this.roots[i]}\n`).then((status) => status === 0)
  }

  /** Unmounts the call's tmpfs (and its merged views) and removes its mount point. */
  async release(view: CallView): Promise<void> {
    await this.ask(`u\n${view.mountPoint}\n`)
    rmSync(view.mountPoint, { recursive: true, force: true })
  }

  /** Ends the holder: its namespace, and every tmpfs still in it, go with it. */
  close(): void {
    this.holder?.stdin?.end()
    this.holder?.kill('SIGKILL')
    rmSync(this.base, { recursive: true, force: true })
  }

  private ask(request: string): Promise<number> {
    if (this.gone || !this.holder) return Promise.resolve(1)
    return new Promise((resolve) => {
      this.answers.push(resolve)
      this.holder!.stdin!.write(request)
    })
  }
}

/** Why a root cannot carry an overlay, or undefined: overlayfs options cannot carry these characters. */
export function overlayPathProblem(path: string): string | undefined {
  if (/[,:\n\\]/.test(path)) return `the root ${JSON.stringify(path)} contains a comma, colon, backslash or newline, which overlayfs mount options cannot carry`
}

/** The roots to overlay: a root inside another is already inside that one's view. */
export function outermost(roots: readonly string[]): string[] {
  const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`)
  return [...new Set(roots)].filter((root, _, all) => !all.some((other) => other !== root && within(root, other)))
}

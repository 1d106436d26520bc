import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import nodePath from 'node:path'
import { type ProcessLaunch, runMarker } from '@dshkit/process'
import { bytesOf } from './bytes.js'

/** What one call's copy-on-write view is made of, on the host and as Node reads it. */
export interface CallView {
  /** The per-call tmpfs mount point (a host folder; the tmpfs and the overlays on it exist only in the holder's namespace). */
  mountPoint: string
  /** The same folder as Node reads it: through the holder's namespace (`/proc/<holder>/root/…`). */
  seen: string
  /** Already mounted by the holder ahead of the call; otherwise the launch mounts it first. */
  mounted: boolean
  /** Per overlaid root `i` (index-aligned with `OverlayHost.roots`): what the call wrote, and the merged view (what it left). */
  upper(i: number): string
  merged(i: number): string
}

export interface OverlayLimits {
  maxBytes: number
  maxFiles: number
}

// One call's view: a tmpfs of the call's bound on $d, and per root an overlay (upper and work on that tmpfs) at $d/m<i>.
// Run by the holder ahead of a call, or by the launch itself when none is ready. Roots follow in "$@", then `--`.
const MOUNT_VIEW = [
  'mount -t tmpfs -o "size=$size,nr_inodes=$inodes,mode=0700" dshkit-txn "$d" || exit 1',
  'i=0; for r in "$@"; do [ "$r" = -- ] && break',
  '  mkdir "$d/u$i" "$d/w$i" "$d/m$i" && mount -t overlay dshkit-txn -o "lowerdir=$r,upperdir=$d/u$i,workdir=$d/w$i" "$d/m$i" || exit 1',
  '  i=$((i+1)); done',
].join('\n')

// The holder keeps one mount namespace alive for the plugin's life, so each call's view outlives the call and
// can be read after it. It ends at EOF on its stdin, so it goes when the process hosting it goes (even by SIGKILL),
// and then kills every command launched through it (marked in its environment): bubblewrap's --die-with-parent
// alone loses a race when the host dies while bwrap is still setting up (measured: its pid-namespace init lived on).
const HOLDER = [
  'mark=$1 size=$2 inodes=$3; shift 3',
  `view() { ( ${MOUNT_VIEW}
  ) >&2; }`,
  'echo ready',
  'while read -r op; do',
  '  read -r d',
  '  case $op in',
  '    p) view "$@"; echo $? ;;',
  '    u) umount -R "$d" >&2; rmdir "$d"; echo $? ;;',
  '    *) echo 2 ;;',
  '  esac',
  'done',
  'for e in /proc/[0-9]*/environ; do grep -qz "^$mark=1$" "$e" 2>/dev/null && kill -9 "$(basename "${e%/environ}")" 2>/dev/null; done',
].join('\n')

// The launch when no view was mounted ahead: mount it here, in the holder's namespace, then exec bubblewrap.
const WRAPPER = [
  'd=$1 size=$2 inodes=$3; shift 3',
  `( ${MOUNT_VIEW}
) || { echo "dshkit-txn: could not mount the copy-on-write view in $d" >&2; exit 125; }`,
  'while [ "$1" != -- ]; do shift; done; shift',
  'exec "$@"',
].join('\n')

/** Marks a launch that failed before the command ran: the copy-on-write view could not be made. */
export const SETUP_FAILURE = 'dshkit-txn: '

/**
 * Copy-on-write views of the writable roots through kernel overlayfs, one per call. bubblewrap 0.8 has no
 * `--overlay`, so the overlays are mounted in the mount namespace of a holder process and bubblewrap is
 * started inside that namespace (`nsenter`), binding each merged view at its root's path. The next call's view
 * is mounted ahead, while nobody waits; the upper layers live on a per-call, size- and inode-bounded tmpfs.
 */
export class OverlayHost {
  private holder?: ChildProcess
  private readonly base: string
  /** In the environment of every launch through this holder, which kills them all when it ends. */
  private readonly mark = runMarker('DSHKIT_VIEW')
  private readonly answers: ((status: number) => void)[] = []
  private readonly rootBytes: string[]
  private calls = 0
  private gone?: string
  private ahead?: CallView
  private preparing = false

  constructor(
    /** The roots overlaid (those not inside another root), real paths. */
    readonly roots: readonly string[],
    private readonly programs: { nsenter: string; unshare: string },
    readonly limits: OverlayLimits,
  ) {
    this.base = mkdtempSync(nodePath.join(tmpdir(), 'dshkit-txn-'))
    this.rootBytes = roots.map(bytesOf)
  }

  /** Starts the holder; resolves once its namespace exists. */
  start(): Promise<void> {
    const args = ['-m', '--propagation', 'private', '/bin/sh', '-c', HOLDER, 'dshkit-view', this.mark, ...this.sizes(), ...this.roots, '--']
    const holder = spawn(this.programs.unshare, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    this.holder = holder
    holder.stdin!.on('error', () => {})
    holder.stderr!.resume()
    // The holder keeps the host process alive only while an answer is awaited: when the host exits, the holder reads EOF and goes too.
    holder.unref()
    for (const stream of [holder.stdin, holder.stderr]) refOf(stream).unref?.()
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
            refOf(holder.stdout).unref?.()
            resolve()
            this.prepare()
          } else {
            this.answers.shift()?.(Number(line))
            if (!this.answers.length) refOf(holder.stdout).unref?.()
          }
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

  /** A fresh view for one call: the one mounted ahead if it is ready, else a new one the launch mounts. */
  open(): CallView {
    if (this.gone || !this.holder?.pid) throw new Error(`the copy-on-write view is unavailable: ${this.gone ?? 'not started'}`)
    const view = this.ahead ?? this.newView(false)
    this.ahead = undefined
    this.prepare()
    return view
  }

  /** The bubblewrap bind source of a root (or a folder inside one) in this view: its merged view. */
  sourceOf(view: CallView, root: string): string {
    const i = this.rootBytes.findIndex((top) => root === top || root.startsWith(`${top}/`))
    return i < 0 ? root : `${view.mountPoint}/m${i}${root.slice(this.rootBytes[i].length)}`
  }

  /** Runs bubblewrap's launch inside the holder's namespace, mounting the view first when it was not mounted ahead. */
  wrap(view: CallView, launch: ProcessLaunch): ProcessLaunch {
    const enter = [`--mount=/proc/${this.holder!.pid}/ns/mnt`, '--']
    const env = { ...(launch.env ?? process.env), [this.mark]: '1' }
    if (view.mounted) return { ...launch, env, file: this.programs.nsenter, args: [...enter, launch.file, ...launch.args] }
    const script = ['/bin/sh', '-c', WRAPPER, 'sh', view.mountPoint, ...this.sizes(), ...this.roots, '--']
    return { ...launch, env, file: this.programs.nsenter, args: [...enter, ...script, launch.file, ...launch.args] }
  }

  /** Unmounts the call's tmpfs and overlays and removes its mount point; the call's result does not wait for it. */
  release(view: CallView): Promise<void> {
    return this.ask(`u\n${view.mountPoint}\n`).then((status) => {
      if (status !== 0) rmSync(view.mountPoint, { recursive: true, force: true })
    })
  }

  /** Ends the holder: its namespace, and every view still in it, go with it. */
  close(): void {
    this.holder?.stdin?.end()
    this.holder?.kill('SIGKILL')
    rmSync(this.base, { recursive: true, force: true })
  }

  /** Mounts the next call's view while nobody waits for it. */
  private prepare(): void {
    if (this.preparing || this.ahead || this.gone) return
    this.preparing = true
    const view = this.newView(true)
    void this.ask(`p\n${view.mountPoint}\n`).then((status) => {
      this.preparing = false
      if (status === 0 && !this.gone) this.ahead = view
      else void this.release(view)
    })
  }

  private newView(mounted: boolean): CallView {
    const mountPoint = nodePath.join(this.base, String(++this.calls))
    mkdirSync(mountPoint, { mode: 0o700 })
    const seen = `/proc/${this.holder!.pid}/root${mountPoint}`
    return { mountPoint, seen, mounted, upper: (i) => `${seen}/u${i}`, merged: (i) => `${seen}/m${i}` }
  }

  /** The tmpfs size and inode count of a view: the bound, plus room for the layer folders. */
  private sizes(): string[] {
    return [String(this.limits.maxBytes), String(this.limits.maxFiles + 4 * this.roots.length + 16)]
  }

  private ask(request: string): Promise<number> {
    if (this.gone || !this.holder) return Promise.resolve(1)
    return new Promise((resolve) => {
      if (!this.answers.length) refOf(this.holder!.stdout).ref?.()
      this.answers.push(resolve)
      this.holder!.stdin!.write(request)
    })
  }
}

/** A child's pipe as the socket it is (ref/unref), whatever Node's types say. */
const refOf = (stream: unknown) => (stream ?? {}) as { ref?: () => void; unref?: () => void }

/** Why a root cannot carry an overlay, or undefined: overlayfs options cannot carry these characters. */
export function overlayPathProblem(path: string): string | undefined {
  if (/[,:\n\\]/.test(path)) return `the root ${JSON.stringify(path)} contains a comma, colon, backslash or newline, which overlayfs mount options cannot carry`
}

/** The roots to overlay: a root inside another is already inside that one's view. */
export function outermost(roots: readonly string[]): string[] {
  const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`)
  return [...new Set(roots)].filter((root, _, all) => !all.some((other) => other !== root && within(root, other)))
}

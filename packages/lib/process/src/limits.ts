import { type CallCgroup, callCgroup } from './cgroup.js'
import { StreamTail } from './output.js'
import { treeCounter } from './reap.js'

/** What one command may use; `false`: dshkit sets none (the limit this process has applies). */
export interface ResourceLimits {
  /** Processes and threads alive at once in the command's whole tree. */
  processes: number | false
  /** Address space of each process (RLIMIT_AS), in bytes. */
  memoryBytes: number | false
  /** CPU time of each process (RLIMIT_CPU), in seconds. */
  cpuSeconds: number | false
  /** Largest file a process may write (RLIMIT_FSIZE), in bytes. */
  fileSizeBytes: number | false
  /** Open file descriptors of each process (RLIMIT_NOFILE). */
  openFiles: number | false
}

/** How a result names the limit it hit: `limit reached: processes`. */
export type LimitName = 'processes' | 'memory' | 'cpu time' | 'file size' | 'open files'

const GiB = 1024 ** 3
export const DEFAULT_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  processes: 1024,
  memoryBytes: 8 * GiB,
  cpuSeconds: 3600,
  fileSizeBytes: 16 * GiB,
  openFiles: 4096,
})

// SIGXCPU first (a program may save its work), SIGKILL this much later.
const CPU_HARD_MARGIN_S = 5
const WATCH_MS = 50
// Messages a program prints when the kernel refused it because of a limit (bash, coreutils, Python, Node, glibc).
const SAID: [LimitName, RegExp][] = [
  ['memory', /Cannot allocate memory|memory exhausted|MemoryError|out of memory|allocation failed|std::bad_alloc/i],
  ['cpu time', /CPU time limit exceeded/],
  ['file size', /File size limit exceeded|File too large/],
  ['open files', /Too many open files/],
]
const SIGNALLED: Partial<Record<string, LimitName>> = { SIGXCPU: 'cpu time', SIGXFSZ: 'file size' }
// bash and bubblewrap report a child killed by signal N as exit code 128 + N.
const SIGNAL_CODES: Partial<Record<number, LimitName>> = { 152: 'cpu time', 153: 'file size' }

/**
 * Joins the call's cgroup (when there is one), sets the rlimits, then runs the command itself.
 * One fixed script, values as arguments: nothing a config holds is ever parsed as shell.
 */
const WRAPPER = [
  '[ -z "$1" ] || echo $$ > "$1" || { echo "dshkit: could not join the cgroup $1" >&2; exit 125; }',
  '{ [ -z "$2" ] || ulimit -v "$2"; } && { [ -z "$3" ] || { ulimit -S -t "$3" && ulimit -H -t "$4"; }; } &&',
  '  { [ -z "$5" ] || ulimit -f "$5"; } && { [ -z "$6" ] || ulimit -n "$6"; } ||',
  ' { echo "dshkit: could not apply the resource limits (memory $2 KiB, cpu $3 s, file size $5 blocks, open files $6); a limit above this system\'s hard limit needs root" >&2; exit 125; }',
  'shift 6',
  'exec "$@"',
].join('\n')

/** The limits of one run: wraps its launch, watches it, and names the limit its end shows. */
export class LimitedRun {
  private readonly cgroup: CallCgroup | undefined
  private readonly stderr = new StreamTail(4096)
  private watcher: NodeJS.Timeout | undefined
  private processesHit = false

  constructor(readonly limits: ResourceLimits) {
    this.cgroup = limits.processes === false ? undefined : callCgroup(limits.processes)
  }

  /** `file args…` run under the limits. */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] } {
    const { memoryBytes, cpuSeconds, fileSizeBytes, openFiles } = this.limits
    // Nothing to set: no wrapper, no cost.
    if (!this.cgroup && [memoryBytes, cpuSeconds, fileSizeBytes, openFiles].every((limit) => limit === false)) return { file, args: [...args] }
    // '' leaves that limit as this process has it.
    const kib = memoryBytes === false ? '' : String(Math.max(1, Math.floor(memoryBytes / 1024)))
    const cpu = cpuSeconds === false ? ['', ''] : [String(cpuSeconds), String(cpuSeconds + CPU_HARD_MARGIN_S)]
    const blocks = fileSizeBytes === false ? '' : String(Math.max(1, Math.floor(fileSizeBytes / 512)))
    const files = openFiles === false ? '' : String(openFiles)
    return { file: '/bin/sh', args: ['-c', WRAPPER, 'dshkit-limits', this.cgroup?.procs ?? '', kib, ...cpu, blocks, files, file, ...args] }
  }

  /** The pids still in the call's cgroup (what a detached daemon, `setsid … &` or a double fork, cannot leave); [] without one. */
  members(): number[] {
    return this.cgroup?.members() ?? []
  }

  /** Polls for a process-limit hit while the run led by `pid` (its env carries `marker`) lives; `onHit` is called once, to kill the tree. */
  watch(pid: number, marker: string, onHit: () => void) {
    const { processes } = this.limits
    if (processes === false) return
    const count = this.cgroup ? undefined : treeCounter(pid, marker)
    const over = count ? () => count() > processes : () => this.cgroup!.hitMax()
    this.watcher = setInterval(() => {
      if (!over()) return
      this.processesHit = true
      this.stop()
      onHit()
    }, WATCH_MS)
    this.watcher.unref()
  }

  /** Keeps the last bytes of stderr, where a program says which limit refused it. */
  noteStderr(chunk: Buffer) {
    this.stderr.push(chunk, false)
  }

  stop() {
    clearInterval(this.watcher)
  }

  /** After the run (and its reaping): the limit it hit, if its end shows one; frees the cgroup. */
  finish(exit: { exitCode: number | null; signal: NodeJS.Signals | null }): LimitName | undefined {
    this.stop()
    if (this.cgroup?.hitMax()) this.processesHit = true
    this.cgroup?.remove()
    if (this.processesHit) return 'processes'
    if (exit.exitCode === 0) return undefined
    const named = (exit.signal && SIGNALLED[exit.signal]) || (exit.exitCode !== null && SIGNAL_CODES[exit.exitCode])
    if (named && this.limits[limitKey(named)] !== false) return named
    const text = this.stderr.result().text
    return SAID.find(([name, pattern]) => this.limits[limitKey(name)] !== false && pattern.test(text))?.[0]
  }
}

const LIMIT_KEYS: Record<LimitName, keyof ResourceLimits> = {
  processes: 'processes',
  memory: 'memoryBytes',
  'cpu time': 'cpuSeconds',
  'file size': 'fileSizeBytes',
  'open files': 'openFiles',
}
const limitKey = (name: LimitName) => LIMIT_KEYS[name]

/** The one line a result carries for a hit, with the knob that raises it. */
export function limitMessage(name: LimitName, limits: ResourceLimits): string {
  const key = limitKey(name)
  return `limit reached: ${name} (${key} ${String(limits[key])}); the command and everything it started were killed. Raise limits.${key} if it needs more`
}

/** Fills what `partial` leaves out from `base`; a bad value is a one-line error naming the key. */
export function resolveLimits(base: ResourceLimits, partial: Partial<ResourceLimits> | undefined): ResourceLimits {
  const merged = { ...base }
  for (const [key, value] of Object.entries(partial ?? {})) {
    if (!(key in DEFAULT_LIMITS)) throw new Error(`unknown limit "${key}"; the limits are ${Object.keys(DEFAULT_LIMITS).join(', ')}`)
    if (value === undefined) continue // absent: the base applies
    if (value !== false && !(Number.isSafeInteger(value) && value > 0))
      throw new Error(`limits.${key} must be a positive whole number or false (no limit); got ${String(value)}`)
    merged[key as keyof ResourceLimits] = value
  }
  return merged
}

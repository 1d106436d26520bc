import { type Context, Service, type Logger } from 'cordis'
import type { SessionService } from '@dshkit/session'
import type { ShellProcess } from '@dshkit/shell'
import type { Config } from './config.js'
import { JobNotFoundError, TooManyJobsError } from './errors.js'
import { Job, type JobInfo, type JobRead, type JobSpec } from './job.js'
import { processStartTime } from './pids.js'
import { closeLostJobs, settledEvent } from './record.js'
import { isSettled } from './status.js'

declare module 'cordis' {
  interface Context {
    jobs: JobsService
  }
}

export type JobListener = (job: JobInfo) => void

const DISPOSED = 'the plugin (or jobs handle) that started it was disposed'
// The longest timer Node can set (about 24.8 days): in practice no deadline.
const NO_DEADLINE_MS = 2 ** 31 - 1

/**
 * The `jobs` service: background commands run through `ctx.shell`. Every job belongs to an owner;
 * a caller works through `forOwner(name)` and sees only that owner's jobs.
 */
export class JobsService extends Service {
  /** Resolves once jobs a previous run left unsettled in the session log are recorded `lost`. */
  readonly ready: Promise<void>
  /** The owner the model's tool calls act as (config `toolOwner`). */
  readonly toolOwner: string
  private readonly jobs = new Map<string, Job>()
  private readonly listeners = new Set<{ owner: string; listener: JobListener }>()
  private readonly live = new Set<Promise<unknown>>()
  private readonly logger: Logger
  private counter = 0
  private closed = false
  private session: SessionService | undefined

  constructor(
    private readonly root: Context,
    readonly config: Config,
  ) {
    super(root, 'jobs')
    this.toolOwner = config.toolOwner
    this.logger = root.logger('jobs')
    this.ready = this.load()
    root.effect(() => () => this.close(), 'jobs: kill live jobs')
  }

  /**
   * A handle acting as `owner`: it sees and controls only that owner's jobs. Jobs started through it are
   * killed (whole process tree) and awaited when it is disposed, or with the calling plugin.
   */
  forOwner(owner: string): JobOwner {
    if (typeof owner !== 'string' || !owner) throw new TypeError('forOwner(owner) needs a non-empty owner name')
    const handle = new JobOwner(this, owner, this.ctx)
    const dispose = this.ctx.effect(() => () => handle.close(), `jobs.forOwner(${JSON.stringify(owner)})`)
    handle.disposeEffect = dispose
    return handle
  }

  /** @internal */
  async launch(owner: string, spec: JobSpec): Promise<Job> {
    if (this.closed) throw new Error('the jobs plugin is disposed; no job can start')
    checkSpec(spec)
    await this.ready
    const running = [...this.jobs.values()].filter((job) => !isSettled(job.status)).length
    if (running >= this.config.maxRunning) throw new TooManyJobsError(this.config.maxRunning)
    const id = `j${++this.counter}`
    const shell = this.root.shell
    const origin = spec.origin ?? 'api'
    let proc: ShellProcess | undefined
    let startError: string | undefined
    try {
      proc = shell.spawn({
        // No deadline unless the job asks for one: a provider's default is meant for calls that block.
        command: spec.command,
        cwd: spec.cwd,
        env: spec.env,
        stdin: spec.stdin,
        timeoutMs: spec.timeoutMs ?? NO_DEADLINE_MS,
        graceMs: this.config.graceMs,
        maxOutputBytes: 0, // the job keeps its own bounded output
        limits: this.config.limits,
        ...(spec.beforeChange ? { beforeChange: spec.beforeChange } : {}),
      })
    } catch (error) {
      startError = (error as Error)?.message ?? String(error)
    }
    const { beforeChange: _recorder, ...kept } = spec
    const job = new Job(id, owner, { ...kept, origin }, proc, shell.sandboxed, this.config.maxOutputChars, startError)
    this.jobs.set(id, job)
    const recorded = this.record({
      type: 'job/started',
      jobId: id,
      owner,
      command: spec.command,
      origin,
      ...(job.pid === undefined ? {} : { pid: job.pid, pidStart: processStartTime(job.pid) }),
    })
    const settled = job.settled.then(async (status) => {
      await recorded
      await this.record(settledEvent(id, status))
      this.forget(owner)
      const info = job.info()
      for (const { owner: who, listener } of [...this.listeners]) {
        if (who !== owner) continue
        try {
          listener(info)
        } catch (error) {
          this.logger.warn('an onDone listener threw for job %s: %s', id, (error as Error)?.message)
        }
      }
    })
    job.recorded = settled.catch(() => {})
    this.track(settled)
    await recorded
    return job
  }

  /** @internal */
  lookup(owner: string, id: unknown): Job | undefined {
    const job = typeof id === 'string' ? this.jobs.get(id) : undefined
    return job && job.owner === owner ? job : undefined
  }

  /** @internal */
  find(owner: string, id: unknown): Job {
    const job = this.lookup(owner, id)
    if (!job)
      throw new JobNotFoundError(
        String(id),
        owner,
        this.ownedBy(owner).map((job) => job.id),
      )
    return job
  }

  /** @internal */
  ownedBy(owner: string): Job[] {
    return [...this.jobs.values()].filter((job) => job.owner === owner)
  }

  /** @internal */
  listen(owner: string, listener: JobListener): () => void {
    const entry = { owner, listener }
    this.listeners.add(entry)
    return () => void this.listeners.delete(entry)
  }

  /** @internal Resolves once the job's settlement is recorded and announced. */
  track(work: Promise<unknown>) {
    const tracked = work.catch((error) => this.logger.warn('%s', (error as Error)?.message)).finally(() => this.live.delete(tracked))
    this.live.add(tracked)
  }

  /** The session to record in; once disposing, our context no longer resolves services, so the last one seen. */
  private sessionOf(): SessionService | undefined {
    const current = this.closed ? undefined : this.root.get('session')
    if (current) this.session = current
    return this.session
  }

  private async record(event: Parameters<SessionService['append']>[0]) {
    const session = this.sessionOf()
    if (!session) return
    try {
      await session.append(event)
    } catch (error) {
      this.logger.warn('could not record %s in the session log: %s', event.type, (error as Error)?.message)
    }
  }

  /** Keeps at most `keepSettled` settled jobs per owner, forgetting the oldest. */
  private forget(owner: string) {
    const settled = this.ownedBy(owner).filter((job) => isSettled(job.status))
    for (const job of settled.slice(0, Math.max(0, settled.length - this.config.keepSettled))) this.jobs.delete(job.id)
  }

  private async load() {
    const session = this.sessionOf()
    if (!session) return
    await session.ready
    for (const event of session.events()) {
      const match = event.type === 'job/started' && /^j(\d+)$/.exec(event.jobId)
      if (match) this.counter = Math.max(this.counter, Number(match[1]))
    }
    await closeLostJobs(session, this.logger)
  }

  /** Kills every live job and waits until each is gone and recorded. */
  private async close() {
    this.closed = true
    const done = (async () => {
      await Promise.all([...this.jobs.values()].map((job) => job.kill('the jobs plugin was disposed')))
      while (this.live.size) await Promise.all([...this.live])
    })()
    // Disposed together with the session (dsh-base), the settlements must still reach the log.
    this.sessionOf()?.holdOpen?.(done)
    await done
  }
}

/** The jobs of one owner, as one caller sees them. */
export class JobOwner {
  /** @internal */
  disposeEffect: (() => Promise<void>) | undefined
  private readonly started = new Set<Job>()
  private closed = false

  constructor(
    private readonly service: JobsService,
    readonly owner: string,
    private readonly caller: Context,
  ) {}

  /** Starts a job; resolves once its `job/started` is durable in the session log (when there is one). */
  async start(spec: JobSpec): Promise<JobInfo> {
    if (this.closed) throw new Error(`the jobs handle of ${this.owner} is disposed; no job can start through it`)
    const job = await this.service.launch(this.owner, spec)
    this.started.add(job)
    return job.info()
  }

  get(id: string): JobInfo | undefined {
    return this.service.lookup(this.owner, id)?.info()
  }

  /** This owner's jobs, oldest first. */
  list(): JobInfo[] {
    return this.service.ownedBy(this.owner).map((job) => job.info())
  }

  /** Output since this owner's last read of the job (or everything kept, with `from: 'start'`). Throws JobNotFoundError. */
  read(id: string, options: { from?: 'last' | 'start' } = {}): JobRead {
    return this.service.find(this.owner, id).read(options.from)
  }

  /** Resolves with the job once it settled, or as it is when `timeoutMs` passes or `signal` aborts. Throws JobNotFoundError. */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<JobInfo> {
    const job = this.service.find(this.owner, id)
    if (isSettled(job.status) || signal?.aborted || timeoutMs <= 0) return job.info()
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    try {
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
        onAbort = resolve
        signal?.addEventListener('abort', onAbort, { once: true })
        job.settled.then(() => resolve())
      })
    } finally {
      clearTimeout(timer)
      if (onAbort) signal?.removeEventListener('abort', onAbort)
    }
    return job.info()
  }

  /** Kills the job's whole process tree; resolves with its final state once nothing of it is left. A settled job is returned as it is. */
  async kill(id: string, reason = 'killed on request'): Promise<JobInfo> {
    const job = this.service.find(this.owner, id)
    await job.kill(reason)
    await job.recorded
    return job.info()
  }

  /** Called once per job of this owner when it settled (after its `job/settled` is recorded). */
  onDone(listener: JobListener): () => void {
    const dispose = this.caller.effect(() => this.service.listen(this.owner, listener), 'jobs.onDone()')
    return () => void dispose()
  }

  /** Kills the jobs started through this handle and waits for them; the handle starts no more. */
  async dispose(): Promise<void> {
    await (this.disposeEffect ? this.disposeEffect() : this.close())
  }

  /** @internal */
  async close() {
    this.closed = true
    await Promise.all(
      [...this.started].map(async (job) => {
        await job.kill(DISPOSED)
        await job.recorded
      }),
    )
  }
}

function checkSpec(spec: JobSpec) {
  if (!spec || typeof spec !== 'object') throw new TypeError('start(spec) needs { command, cwd?, env?, stdin?, timeoutMs?, origin? }')
  if (typeof spec.command !== 'string' || !spec.command.trim()) throw new TypeError('start(spec) needs a non-empty command string')
  if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw new TypeError('start(spec): timeoutMs must be a positive whole number of milliseconds')
  }
}

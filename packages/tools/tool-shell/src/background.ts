import type { Context } from 'cordis'
import type { JobOwner, JobsService } from '@dshkit/jobs'
import type { ContentBlock, ToolRunContext } from '@dshkit/tools'
import { escapeControls } from '@dshkit/common'
import type { ShellSpec } from '@dshkit/shell'

/** What `shell { background: true }` returns: the job it started, at once. */
export interface BackgroundValue {
  background: true
  jobId: string
  command: string
  status: string
}

export function isBackground(value: object): value is BackgroundValue {
  return (value as BackgroundValue).background === true
}

/**
 * The jobs handle the shell tool starts background jobs through, as the model's tool owner
 * (`ctx.jobs.toolOwner`); looked up at call time, since `jobs` is optional. One handle per jobs service.
 */
export function backgroundJobs(ctx: Context): () => JobOwner | undefined {
  const handles = new WeakMap<JobsService, JobOwner>()
  return () => {
    const jobs = ctx.get('jobs')
    // Without job_output the model could start a job but never read it.
    if (!jobs || !ctx.get('tools')?.get('job_output')) return undefined
    let handle = handles.get(jobs)
    if (!handle) handles.set(jobs, (handle = jobs.forOwner(jobs.toolOwner)))
    return handle
  }
}

/** Starts the command as a background job; without a jobs service that is a clear error, never a foreground run. */
export async function startBackground(
  jobs: JobOwner | undefined,
  args: { command: string; cwd?: string; timeoutMs?: number },
  run: ToolRunContext,
  beforeChange?: ShellSpec['beforeChange'],
): Promise<BackgroundValue> {
  if (!jobs)
    throw Object.assign(
      new Error('background: true needs background jobs (@dshkit/jobs with @dshkit/tool-jobs); run the command without background, or enable jobs'),
      { retryable: false },
    )
  if (run.signal.aborted) throw run.signal.reason
  // The job's file changes are recorded under the id of the call that started it.
  const job = await jobs.start({ command: args.command, cwd: args.cwd, timeoutMs: args.timeoutMs, origin: 'shell', ...(beforeChange ? { beforeChange } : {}) })
  return { background: true, jobId: job.id, command: job.command, status: job.statusText }
}

export function renderBackground(value: BackgroundValue): ContentBlock[] {
  const text =
    `started background job ${value.jobId} (${value.status}): ${escapeControls(value.command)}\n` +
    `read its output with job_output {"job_id":"${value.jobId}"} (add "wait": true to wait for the end); stop it with job_kill`
  return [{ type: 'text', text }]
}

/**
 * The job does not exist, or belongs to another owner: one error for both, so an id tells a
 * caller nothing about jobs that are not theirs.
 */
export class JobNotFoundError extends Error {
  readonly code = 'JOB_NOT_FOUND'
  constructor(
    readonly jobId: string,
    readonly owner: string,
    known: string[],
  ) {
    super(`no job ${quote(jobId)} for ${owner}; ${known.length ? `your jobs: ${known.join(', ')}` : 'you have no jobs'}`)
    this.name = 'JobNotFoundError'
  }
}

/** start() was refused: the configured number of jobs are already running. */
export class TooManyJobsError extends Error {
  readonly code = 'TOO_MANY_JOBS'
  constructor(limit: number) {
    super(`${limit} jobs are already running (jobs config maxRunning); wait for one or kill one with job_kill first`)
    this.name = 'TooManyJobsError'
  }
}

/** An id as the caller wrote it, bounded and with control characters escaped. */
export function quote(id: string): string {
  const text = JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id)
  return text
}

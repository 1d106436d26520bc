/** Where a job is in its one state machine: running → stopping → exited | killed | failed | lost. */
export type JobStatus =
  | { state: 'running' }
  /** A kill was asked for; the process tree is being stopped (SIGTERM, then SIGKILL after the grace). */
  | { state: 'stopping'; reason: string }
  /** It exited by itself with this code. `reason` is set when it exited after someone asked it to stop (it trapped SIGTERM). */
  | { state: 'exited'; code: number; reason?: string }
  /** A signal ended it (ours, after a kill or timeout, or anyone else's). */
  | { state: 'killed'; signal: string; reason?: string }
  /** It could not be run (spawn failure, missing cwd) or ended in a way that says neither code nor signal. */
  | { state: 'failed'; error: string }
  /** The process that started it stopped before its end was recorded (found on the next load of the session log). */
  | { state: 'lost'; reason?: string }

export type JobState = JobStatus['state']
export type SettledStatus = Exclude<JobStatus, { state: 'running' } | { state: 'stopping' }>

export function isSettled(status: JobStatus): status is SettledStatus {
  return status.state !== 'running' && status.state !== 'stopping'
}

/** `running`, `stopping (reason)`, `exited 1`, `exited 0 after a stop request (reason)`, `killed SIGKILL (reason)`, `failed: …`, `lost`. */
export function describeStatus(status: JobStatus): string {
  switch (status.state) {
    case 'running':
      return 'running'
    case 'stopping':
      return `stopping (${status.reason})`
    case 'exited':
      return status.reason === undefined ? `exited ${status.code}` : `exited ${status.code} after a stop request (${status.reason})`
    case 'killed':
      return `killed ${status.signal}${status.reason === undefined ? '' : ` (${status.reason})`}`
    case 'failed':
      return `failed: ${status.error}`
    case 'lost':
      return status.reason === undefined ? 'lost' : `lost (${status.reason})`
  }
}

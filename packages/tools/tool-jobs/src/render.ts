import type { JobInfo } from '@dshkit/jobs'
import { escapeControls } from '@dshkit/common'

const MAX_COMMAND_CHARS = 120

/** `shell: npm test`, bounded. */
export function label(job: Pick<JobInfo, 'origin' | 'command'>): string {
  const command = escapeControls(job.command)
  return `${job.origin}: ${command.length > MAX_COMMAND_CHARS ? `${command.slice(0, MAX_COMMAND_CHARS)}…` : command}`
}

/** `[job j3 (shell: npm test) exited 1]`: how every job_output answer ends. */
export function statusLine(job: JobInfo, note = ''): string {
  return `[job ${job.id} (${label(job)}) ${job.statusText}${note}]`
}

/** One line per job for job_list: `j1 running — shell: npm run dev`. */
export function listLine(row: { job_id: string; status: string; origin: string; command: string }): string {
  return `${row.job_id} ${row.status} — ${label({ origin: row.origin, command: row.command })}`
}

/** The owner's jobs in a sentence, for a denial reason. */
export function yourJobs(jobs: JobInfo[]): string {
  if (!jobs.length) return 'you have no background jobs (start one with the shell tool and background: true)'
  return `your jobs: ${jobs.map((job) => `${job.id} (${job.statusText}: ${label(job)})`).join('; ')}`
}

import type { JobInfo } from '@dshkit/jobs'
import type { ContextMessage } from '@dshkit/tools'
import { label } from './render.js'

export const NOTICE_SOURCE = 'tool-jobs'

/**
 * Finished jobs the model has not been told about yet. A job is announced once; reading its final
 * output or killing it counts as being told, so no notice follows.
 */
export class Notices {
  private readonly pending = new Map<string, JobInfo>()
  private readonly told = new Set<string>()

  finished(job: JobInfo) {
    if (!this.told.has(job.id)) this.pending.set(job.id, job)
  }

  /** The model saw the job's end itself (job_output reached it, job_kill returned it). */
  seen(id: string) {
    this.told.add(id)
    this.pending.delete(id)
  }

  /** The notices due now, each handed out once. */
  take(): ContextMessage[] {
    if (!this.pending.size) return []
    const due = [...this.pending.values()]
    this.pending.clear()
    for (const job of due) this.told.add(job.id)
    return due.map((job) => ({ source: NOTICE_SOURCE, content: [{ type: 'text', text: noticeText(job) }] }))
  }
}

/** `background job j3 (shell: npm test) finished [exited 1]; read it with job_output {"job_id":"j3"}` */
export function noticeText(job: JobInfo): string {
  return `background job ${job.id} (${label(job)}) finished [${job.statusText}]; read it with job_output {"job_id":"${job.id}"}`
}

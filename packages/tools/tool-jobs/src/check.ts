import type { Context } from 'cordis'
import type { JobOwner } from '@dshkit/jobs'
import type { PreToolDecision, ToolExecution } from '@dshkit/tools'
import { escapeControls } from '@dshkit/common'
import { yourJobs } from './render.js'
import { JOB_CONTROL, JOB_KILL } from './tools.js'

export const CHECK_SOURCE = 'tool-jobs'

/**
 * The pre-execute job check, outermost (`prepend`): a job-control call naming a job its caller does not
 * own, or that does not exist, is denied before any other policy runs. A `job_kill` without `command` is
 * passed on unjudged: its body runs it again with the job's command filled in, and that call is judged
 * by every policy, so permission rules and hooks see what is being killed.
 */
export function registerJobCheck(ctx: Context, jobs: JobOwner) {
  ctx.on(
    'tools/pre-execute',
    async (exec: ToolExecution, next: () => Promise<PreToolDecision>): Promise<PreToolDecision> => {
      if (!JOB_CONTROL.has(exec.name)) return next()
      const input = exec.input as { job_id: string; command?: string }
      const job = jobs.get(input.job_id)
      if (!job) {
        const id = escapeControls(input.job_id.length > 40 ? `${input.job_id.slice(0, 40)}…` : input.job_id)
        return { kind: 'deny', reason: `${exec.name}: there is no job "${id}" of yours; ${yourJobs(jobs.list())}`, source: CHECK_SOURCE }
      }
      if (exec.name !== JOB_KILL) return next()
      if (input.command === undefined) return { kind: 'allow' }
      if (input.command !== job.command) {
        return {
          kind: 'deny',
          reason: `job_kill: command does not match job ${job.id}'s command; leave command out (dshkit fills it in)`,
          source: CHECK_SOURCE,
        }
      }
      return next()
    },
    { prepend: true },
  )
}

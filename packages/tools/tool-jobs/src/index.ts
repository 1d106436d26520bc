import type { Context } from 'cordis'
import type {} from '@dshkit/jobs'
import { definePlugin, type ToolExecution, type ToolExecutionResult } from '@dshkit/tools'
import { registerJobCheck } from './check.js'
import { Config, type ConfigInput } from './config.js'
import { Notices } from './notices.js'
import { jobTools } from './tools.js'

export { jobTools, JOB_OUTPUT, JOB_LIST, JOB_KILL } from './tools.js'
export { noticeText, NOTICE_SOURCE } from './notices.js'
export { CHECK_SOURCE } from './check.js'
export { Config, type ConfigInput, DEFAULT_WAIT_MS, MAX_WAIT_MS } from './config.js'

export const name = 'tool-jobs'
export const inject = ['tools', 'jobs']

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  // The model's calls act as the jobs service's tool owner: the same one tool-shell's `background` starts jobs as.
  const jobs = ctx.jobs.forOwner(ctx.jobs.toolOwner)
  const notices = new Notices()
  const execute = ctx.tools.execute
  const { jobOutput, jobList, jobKill } = jobTools({ jobs, notices, config, execute })
  ctx.tools.register(jobOutput)
  ctx.tools.register(jobList)
  ctx.tools.register(jobKill)
  registerJobCheck(ctx, jobs)
  if (!config.notices) return
  jobs.onDone((job) => notices.finished(job))
  // Notices ride on the next top-level result (a nested call's result is not what the model reads).
  ctx.on('tools/post-execute', async (exec: ToolExecution, _result: Readonly<ToolExecutionResult>, next: () => Promise<Readonly<ToolExecutionResult>>) => {
    const inner = await next()
    if (exec.parent) return inner
    const due = notices.take()
    return due.length ? { kind: 'accept' as const, additionalContexts: due } : inner
  })
}

export default definePlugin({ name, inject, Config, apply })

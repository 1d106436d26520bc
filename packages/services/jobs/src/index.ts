import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import type {} from '@dshkit/shell'
import { Config, type ConfigInput } from './config.js'
import { JobsService } from './service.js'

export { JobsService, JobOwner, type JobListener } from './service.js'
export type { JobSpec, JobInfo, JobRead } from './job.js'
export { describeStatus, isSettled, type JobStatus, type JobState, type SettledStatus } from './status.js'
export { JobNotFoundError, TooManyJobsError } from './errors.js'
export { openJobsOf } from './record.js'
export { Config, type ConfigInput, DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_MAX_RUNNING, DEFAULT_KEEP_SETTLED, DEFAULT_TOOL_OWNER } from './config.js'

export const name = 'jobs'
export const inject = ['shell']

// An async arrow: cordis waits until jobs a previous run left open are recorded `lost`, and never calls an arrow with `new`.
export const apply = async (ctx: Context, config?: ConfigInput) => {
  const jobs = new JobsService(ctx, Config.parse(config))
  await jobs.ready
}

export default definePlugin({ name, inject, Config, apply })

import type { Logger } from 'cordis'
import type { JobSettledEvent, JobStartedEvent, SessionService } from '@dshkit/session'
import { killLeftoverGroup } from './pids.js'
import type { SettledStatus } from './status.js'

/** The `job/settled` event for a final status. */
export function settledEvent(jobId: string, status: SettledStatus): Omit<JobSettledEvent, 'time'> {
  const event: Omit<JobSettledEvent, 'time'> = { type: 'job/settled', jobId, status: status.state }
  if (status.state === 'exited') event.exitCode = status.code
  if (status.state === 'killed') event.signal = status.signal
  if (status.state === 'failed') event.error = status.error
  if ('reason' in status && status.reason !== undefined) event.reason = status.reason
  return event
}

/** The `job/started` events with no later `job/settled`: jobs a previous process left running. */
export function openJobsOf(events: Iterable<{ type: string }>): JobStartedEvent[] {
  const open = new Map<string, JobStartedEvent>()
  for (const event of events) {
    if (event.type === 'job/started') open.set((event as JobStartedEvent).jobId, event as JobStartedEvent)
    else if (event.type === 'job/settled') open.delete((event as JobSettledEvent).jobId)
  }
  return [...open.values()]
}

/**
 * Closes every job the log says was started but never settled (its process died first) with `lost`,
 * killing its process group first if it is somehow still running. Returns the ids closed.
 */
export async function closeLostJobs(session: SessionService, logger: Logger): Promise<string[]> {
  await session.ready
  const lost = openJobsOf(session.events())
  for (const job of lost) {
    const killed = killLeftoverGroup(job.pid, job.pidStart)
    const reason = killed
      ? 'the process that started it stopped first; its processes were still running and were killed on this load'
      : 'the process that started it stopped before the job ended'
    await session.append(settledEvent(job.jobId, { state: 'lost', reason }))
  }
  if (lost.length) logger.warn('recorded %d background job(s) a previous run left unsettled as lost: %s', lost.length, lost.map((job) => job.jobId).join(', '))
  return lost.map((job) => job.jobId)
}

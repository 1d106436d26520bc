import type { JobInfo, JobOwner } from '@dshkit/jobs'
import { defineTool, type ToolExecutionResult, type ToolRunContext } from '@dshkit/tools'
import { z } from 'zod'
import type { Config } from './config.js'
import type { Notices } from './notices.js'
import { escapeControls } from '@dshkit/common'
import { listLine, statusLine } from './render.js'

export const JOB_OUTPUT = 'job_output'
export const JOB_LIST = 'job_list'
export const JOB_KILL = 'job_kill'
/** The tools whose `job_id` the pre-execute check verifies. */
export const JOB_CONTROL = new Set([JOB_OUTPUT, JOB_KILL])

const jobId = z
  .string()
  .min(1, 'job_id must not be empty')
  .max(200, 'job_id is at most 200 characters')
  .describe('The id a background job was started with, e.g. "j3" (job_list shows them).')

interface OutputValue {
  job_id: string
  status: string
  done: boolean
  output: string
  dropped_chars: number
  waited_ms?: number
}

interface KillValue {
  job_id: string
  command: string
  status: string
}

export interface ToolDeps {
  jobs: JobOwner
  notices: Notices
  config: Config
  /** ctx.tools.execute, held once: job_kill runs the kill again through the pipeline with the command filled in. */
  execute(input: { callId: string; name: string; arguments: unknown; signal?: AbortSignal; parent?: symbol }): Promise<ToolExecutionResult>
}

export function jobTools({ jobs, notices, config, execute }: ToolDeps) {
  const jobOutput = defineTool({
    name: JOB_OUTPUT,
    description:
      "Read a background job's output: what arrived since your last read, then its status. Returns at once " +
      'unless wait is true, which waits until the job ends (or timeout_ms passes).',
    parameters: z.object({
      job_id: jobId,
      wait: z.boolean().optional().describe('Wait for the job to end before answering (default false: answer at once).'),
      timeout_ms: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(`With wait: the longest to wait, in ms (default ${config.defaultWaitMs}, at most ${config.maxWaitMs}).`),
    }),
    isConcurrencySafe: (args) => !args.wait,
    execute: async (args, run) => {
      let waited: number | undefined
      if (args.wait) {
        const started = Date.now()
        await jobs.wait(args.job_id, Math.min(args.timeout_ms ?? config.defaultWaitMs, config.maxWaitMs), run.signal)
        waited = Date.now() - started
      }
      const read = jobs.read(args.job_id)
      if (read.done) notices.seen(read.job.id)
      const value: OutputValue = { job_id: read.job.id, status: read.job.statusText, done: read.done, output: read.text, dropped_chars: read.droppedChars }
      if (waited !== undefined) value.waited_ms = waited
      return value
    },
    render: (value) => [{ type: 'text', text: renderOutput(value, jobs.get(value.job_id)) }],
  })

  const jobList = defineTool({
    name: JOB_LIST,
    description: 'List your background jobs with their status (running, exited N, killed SIGNAL, failed, lost).',
    parameters: z.object({}),
    isConcurrencySafe: () => true,
    execute: () => jobs.list().map((job) => ({ job_id: job.id, command: job.command, origin: job.origin, status: job.statusText, started_at: job.startedAt })),
    render: (value) => [{ type: 'text', text: value.length ? value.map((row) => listLine(row)).join('\n') : 'no background jobs' }],
  })

  const jobKill = defineTool({
    name: JOB_KILL,
    description: 'Stop a background job and everything it started (SIGTERM, then SIGKILL after a grace period). ' + 'Answers with how it really ended.',
    parameters: z.object({
      job_id: jobId,
      reason: z.string().max(500, 'reason is at most 500 characters').optional().describe('Why, for the log.'),
      command: z.string().optional().describe("Leave out: dshkit fills in the job's command so permission rules and hooks judge the kill by it."),
    }),
    execute: async (args, run): Promise<KillValue> => {
      if (args.command === undefined) return judgedKill(args, run)
      const reason = `job_kill${args.reason ? `: ${args.reason}` : ''}`
      const job = await jobs.kill(args.job_id, reason)
      notices.seen(job.id)
      return { job_id: job.id, command: job.command, status: job.statusText }
    },
    render: (value) => [{ type: 'text', text: `job ${value.job_id} (${escapeControls(value.command)}) ${value.status}` }],
  })

  /** The call again, with the command filled in, through every policy (permission rules, hooks, approval). */
  async function judgedKill(args: { job_id: string; reason?: string }, run: ToolRunContext): Promise<KillValue> {
    const job = jobs.get(args.job_id)
    if (!job) throw new Error(`no job ${JSON.stringify(args.job_id)}`)
    const result = await execute({
      callId: `${run.callId}:judged`,
      name: JOB_KILL,
      arguments: { job_id: job.id, ...(args.reason === undefined ? {} : { reason: args.reason }), command: job.command },
      signal: run.signal,
      parent: run.token,
    })
    if (result.isError) throw Object.assign(new Error(`${result.error.code}: ${result.error.message}`), { retryable: false })
    return result.value as unknown as KillValue
  }

  return { jobOutput, jobList, jobKill }
}

function renderOutput(value: OutputValue, job: JobInfo | undefined): string {
  const body = value.output ? (value.output.endsWith('\n') ? value.output : `${value.output}\n`) : '(no new output since the last read)\n'
  const note = value.waited_ms !== undefined && !value.done ? `; still running after waiting ${value.waited_ms} ms` : ''
  const status = job ? statusLine({ ...job, statusText: value.status }, note) : `[job ${value.job_id} ${value.status}${note}]`
  return body + status
}

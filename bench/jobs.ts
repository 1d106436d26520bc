// What a background job costs over running the same command in the foreground: ctx.jobs start → wait →
// read, and the model's way (shell { background: true } then job_output { wait: true }) through the whole
// pipeline, against ctx.shell.run of the same `bash -c true`, in the same run. Plus 50 jobs at once.
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import Session from '@dshkit/session'
import ShellLocal from '@dshkit/shell-local'
import ToolShell from '@dshkit/tool-shell'
import Jobs from '@dshkit/jobs'
import ToolJobs from '@dshkit/tool-jobs'
import { compare, machine, size, table } from './support/measure.js'

const log = (message: string) => process.stderr.write(`jobs: ${message}\n`)

const dir = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-bench-jobs-')))
const ctx = new Context()
try {
  await ctx.plugin(Tools)
  await ctx.plugin(Session)
  await ctx.plugin(ShellLocal, { cwd: dir })
  await ctx.plugin(ToolShell)
  await ctx.plugin(Jobs, { keepSettled: 10 })
  await ctx.plugin(ToolJobs, { notices: false })
  while (!ctx.get('jobs') || !ctx.tools.get('job_output')) await new Promise((resolve) => setTimeout(resolve, 5))
  const owner = ctx.jobs.forOwner('bench')
  let n = 0
  const execute = async (name: string, args: unknown) => {
    const result = await ctx.tools.execute({ callId: `c${n++}`, name, arguments: args })
    if (result.isError) throw new Error(`bench: ${name} failed: ${result.error.message}`)
    return result
  }
  const width = size(50, 5)
  const rows: Record<string, () => unknown> = {
    'ctx.shell.run (foreground)': () => ctx.shell.run({ command: 'true' }),
    'ctx.jobs: start, wait, read': async () => {
      const job = await owner.start({ command: 'true' })
      await owner.wait(job.id, 10_000)
      owner.read(job.id)
    },
    'shell {background} + job_output {wait}, full pipeline': async () => {
      const started = await execute('shell', { command: 'true', background: true })
      await execute('job_output', { job_id: (started.value as { jobId: string }).jobId, wait: true })
    },
    [`${width} × ctx.shell.run at once`]: () => Promise.all(Array.from({ length: width }, () => ctx.shell.run({ command: 'true' }))),
    [`${width} × ctx.jobs start + wait at once`]: () =>
      Promise.all(
        Array.from({ length: width }, async () => {
          const job = await owner.start({ command: 'true' })
          await owner.wait(job.id, 30_000)
        }),
      ),
  }
  log('bash -c true as a job')
  const figures = await compare(rows, { rounds: 7, batch: 10, warmup: 3 })
  const single = figures['ctx.shell.run (foreground)']
  const many = figures[`${width} × ctx.shell.run at once`]
  const ratio = (name: string, us: number) => `${(us / (name.includes(' at once') ? many : single)).toFixed(2)}×`
  console.log(
    [
      '## jobs',
      '',
      `${machine()}. Median µs per \`bash -c true\` run as a background job, against the same command run in the foreground by \`ctx.shell.run\` (the ${width}-at-once rows against ${width} foreground runs at once).`,
      '',
      table(
        ['way', 'µs', 'ratio'],
        Object.entries(figures).map(([name, us]) => [name, us, ratio(name, us)]),
      ),
      '',
      'A job adds its registry entry, a bounded output buffer, a `job/started` and a `job/settled` append to the session (memory here; with the JSONL store each is an fsync), and the owner check on every access. The pipeline row is two tool calls.',
    ].join('\n'),
  )
} finally {
  for (const fiber of [...ctx.registry.values()]
    .flatMap((r) => [...r.fibers])
    .filter((f) => f.parent.fiber === ctx.fiber)
    .reverse())
    await fiber.dispose()
  await rm(dir, { recursive: true, force: true })
}

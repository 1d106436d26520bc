// The cost of running a command through dshkit: the `shell` tool through the whole pipeline, and
// ctx.shell.run alone, against a bare child_process.spawn of the same `bash -c true`, in the same run.
import { spawn } from 'node:child_process'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import ShellLocal from '@dshkit/shell-local'
import ToolShell from '@dshkit/tool-shell'
import { compare, machine, table } from './lib/measure.js'

const log = (message: string) => process.stderr.write(`shell: ${message}\n`)

/** Tools + a shell provider + the shell tool, as an agent would have them. */
async function boot(provider: (ctx: Context) => Promise<unknown>) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  await provider(ctx)
  await ctx.plugin(ToolShell)
  return ctx
}

/** The baseline: what a hand-written runner does at the least, spawn and wait for the exit. */
function bareSpawn(cwd: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { cwd })
    child.on('error', reject)
    child.on('exit', () => resolve())
  })
}

const dir = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-bench-shell-')))
try {
  const local = await boot((ctx) => ctx.plugin(ShellLocal, { cwd: dir }))
  let n = 0
  const call = (ctx: Context) => async () => {
    const result = await ctx.tools.execute({ callId: `c${n++}`, name: 'shell', arguments: { command: 'true' } })
    if (result.isError) throw new Error(`bench: the shell call failed: ${result.error.message}`)
  }
  // One row per way of running `true`; a provider adds its rows here (the first row is the baseline).
  const rows: Record<string, () => unknown> = {
    'bare spawn(bash -c true), awaited to exit': () => bareSpawn(dir),
    'ctx.shell.run (shell-local)': () => local.shell.run({ command: 'true' }),
    'shell tool call, full pipeline (shell-local)': call(local),
  }
  log('bash -c true')
  const figures = await compare(rows, { rounds: 9, batch: 30, warmup: 20 })
  const base = figures['bare spawn(bash -c true), awaited to exit']
  console.log([
    '## shell',
    '',
    `${machine()}. Median µs per \`bash -c true\`, ratio against a bare \`child_process.spawn\` awaited to its exit (target ≤ 1.2× for shell-local through the pipeline).`,
    '',
    table(['way', 'µs', 'ratio'], Object.entries(figures).map(([name, us]) => [name, us, `${(us / base).toFixed(2)}×`])),
    '',
    'The seam adds a stat of the cwd, a copied environment with the run marker, its own process group, both pipes read to their close, and a check that the group is empty after the exit; the tool adds the pipeline and rendering.',
  ].join('\n'))
} finally {
  await rm(dir, { recursive: true, force: true })
}

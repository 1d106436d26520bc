// The cost of running a command through dshkit: the `shell` tool through the whole pipeline, and
// ctx.shell.run alone, against a bare child_process.spawn of the same `bash -c true`, in the same run.
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import ShellLocal from '@dshkit/shell-local'
import ShellSandbox from '@dshkit/shell-sandbox'
import ToolShell from '@dshkit/tool-shell'
import { compare, machine, table } from './support/measure.js'

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
  // A provider is one entry here: it gets a ctx.shell.run row and a full-pipeline row.
  // Every limit lifted: no wrapper, no cgroup (what the default limits cost is the difference).
  const unlimited = { processes: false, memoryBytes: false, cpuSeconds: false, fileSizeBytes: false, openFiles: false } as const
  const providers: [name: string, plug: (ctx: Context) => Promise<unknown>][] = [
    ['shell-local', (ctx) => ctx.plugin(ShellLocal, { cwd: dir })],
    ['shell-local, limits off', (ctx) => ctx.plugin(ShellLocal, { cwd: dir, limits: unlimited })],
    // bubblewrap per call: new mount, pid, ipc and net namespaces, the binds, and the deny-glob scan of the (empty) root.
    ['shell-sandbox', (ctx) => ctx.plugin(ShellSandbox, { roots: [dir] })],
    ['shell-sandbox, limits off', (ctx) => ctx.plugin(ShellSandbox, { roots: [dir], limits: unlimited })],
    // Today's default runs each call as a transaction (bench/shell-txn.ts measures that); this row is bubblewrap alone.
    ['shell-sandbox, direct mode', (ctx) => ctx.plugin(ShellSandbox, { roots: [dir], changes: 'direct' })],
  ]
  let n = 0
  const call = (ctx: Context) => async () => {
    const result = await ctx.tools.execute({ callId: `c${n++}`, name: 'shell', arguments: { command: 'true' } })
    if (result.isError) throw new Error(`bench: the shell call failed: ${result.error.message}`)
  }
  // The first row is the baseline.
  const rows: Record<string, () => unknown> = { 'bare spawn(bash -c true), awaited to exit': () => bareSpawn(dir) }
  for (const [name, plug] of providers) {
    const ctx = await boot(plug)
    rows[`ctx.shell.run (${name})`] = () => ctx.shell.run({ command: 'true' })
    rows[`shell tool call, full pipeline (${name})`] = call(ctx)
  }
  log('bash -c true')
  const figures = await compare(rows, { rounds: 9, batch: 30, warmup: 20 })
  // shell-sandbox walks the roots at each launch to hide what deny globs match: its cost per 1,000 entries.
  const tree = join(dir, 'tree')
  for (let d = 0; d < 50; d++) {
    await mkdir(join(tree, `d${d}`), { recursive: true })
    for (let f = 0; f < 19; f++) await writeFile(join(tree, `d${d}`, `f${f}.txt`), '')
  }
  const walker = new Context()
  const walkerFiber = await walker.plugin(ShellSandbox, { roots: [tree] })
  const sandbox = walker.shell as unknown as { flags(): string[] }
  const walk = await compare({ 'deny-glob walk of 1,000 entries': () => sandbox.flags() }, { rounds: 9, batch: 10, warmup: 5 })
  await walkerFiber.dispose()
  const base = figures['bare spawn(bash -c true), awaited to exit']
  console.log(
    [
      '## shell',
      '',
      `${machine()}. Median µs per \`bash -c true\`, ratio against a bare \`child_process.spawn\` awaited to its exit (target ≤ 1.2× for shell-local through the pipeline).`,
      '',
      table(
        ['way', 'µs', 'ratio'],
        Object.entries(figures).map(([name, us]) => [name, us, `${(us / base).toFixed(2)}×`]),
      ),
      '',
      'The default resource limits add a `/bin/sh` that sets the rlimits and joins a per-call cgroup (pids.max) before it execs the provider\'s program; the "limits off" rows have neither.',
      'The seam adds a stat of the cwd, a copied environment with the run marker, its own process group, both pipes read to their close, and a check that the group is empty after the exit; the tool adds the pipeline and rendering.',
      `shell-sandbox runs the same \`bash -c true\` inside \`bwrap\` (read-only system, the root bound writable, private /tmp and /run, new pid/ipc/net namespaces, capabilities dropped): its "direct mode" rows against shell-local's are what bubblewrap adds per call, the other shell-sandbox rows also run each call as a transaction (copy-on-write view, see bench/shell-txn.ts). The root here is empty; the deny-glob walk adds ${Math.round(walk['deny-glob walk of 1,000 entries'])} µs per 1,000 entries in the roots (measured in this run), synchronously, before each launch.`,
      'shell-local finds bash on PATH once at start, where the bare spawn searches PATH on every call; on a busy machine the spawn itself dominates every row.',
    ].join('\n'),
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}

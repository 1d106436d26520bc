// What running shell calls as transactions costs (shell-sandbox's default): a call that changes nothing,
// and one that writes 100 files of 4 KB, each against the same call in direct mode, in the same run.
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import ShellSandbox from '@dshkit/shell-sandbox'
import { compare, machine, size, table } from './support/measure.js'

const log = (message: string) => process.stderr.write(`shell-txn: ${message}\n`)

const base = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-bench-shell-txn-')))
const contexts: Context[] = []
try {
  const shellIn = async (name: string, changes: 'transaction' | 'direct') => {
    const root = join(base, name)
    await import('node:fs/promises').then((fs) => fs.mkdir(root))
    const ctx = new Context()
    contexts.push(ctx)
    await ctx.plugin(ShellSandbox, { roots: [root], changes })
    return ctx.shell
  }
  const txn = await shellIn('txn', 'transaction')
  const direct = await shellIn('direct', 'direct')
  const files = size(100, 100)
  let n = 0
  // Bash builtins only, so the command itself costs the same in both modes; a new content each call, so every file changes.
  const writeMany = () => `s=$(printf '%4095s' ''); for i in $(seq ${files}); do printf '%s%d' "$s" ${++n % 10} > f$i; done`
  const ok = async (run: Promise<{ exitCode: number | null; error?: string; changes?: { error?: string; applied: unknown[] } }>, landed: number) => {
    const result = await run
    if (result.exitCode !== 0 || result.error || result.changes?.error)
      throw new Error(`bench: a call failed: ${result.error ?? result.changes?.error ?? result.exitCode}`)
    if (result.changes && result.changes.applied.length !== landed) throw new Error(`bench: ${result.changes.applied.length} changes landed, not ${landed}`)
  }
  log('bash -c true')
  const idle = await compare(
    {
      'no change, direct mode (today)': () => ok(direct.run({ command: 'true' }), 0),
      'no change, transaction': () => ok(txn.run({ command: 'true' }), 0),
    },
    { rounds: 7, batch: 10, warmup: 5 },
  )
  log(`${files} files of 4 KB`)
  await ok(txn.run({ command: writeMany() }), files) // the files exist from here on: every later call modifies them
  const busy = await compare(
    {
      [`${files} files of 4 KB, direct mode`]: () => ok(direct.run({ command: writeMany() }), 0),
      [`${files} files of 4 KB, transaction`]: () => ok(txn.run({ command: writeMany() }), files),
    },
    { rounds: 7, batch: 4, warmup: 2 },
  )
  const rows = (figures: Record<string, number>) => {
    const [first, ...rest] = Object.entries(figures)
    return [[first[0], first[1], '1.00×'], ...rest.map(([name, us]) => [name, us, `${(us / first[1]).toFixed(2)}×`])]
  }
  console.log(
    [
      '## shell-txn',
      '',
      `${machine()}. Median µs per \`ctx.shell.run\` in shell-sandbox, each ratio against the same command in direct mode (targets: ≤ 1.2× for no change, ≤ 2× for 100 files of 4 KB).`,
      '',
      table(['call', 'µs', 'ratio'], [...rows(idle), ...rows(busy)]),
      '',
      "A transaction adds, per call: an `nsenter` into the holder's mount namespace before bwrap (the call's view, a tmpfs with an overlay per root, was mounted there ahead, while the previous call was judged), and after it a statfs and a readdir of the upper layer; unmounting is not waited for. With changes, also the walk of the upper layer, a byte compare per file that existed, fs-sandbox's judgement per path, and a copy + rename per file (no recorder here: tool-shell adds a sha256 and a before-image per file when a session or fs-checkpoint is up). Writing into the tmpfs is cheaper than into the disk, which is why the busy row can come out at or below 1×.",
    ].join('\n'),
  )
} finally {
  for (const ctx of contexts) for (const fiber of [...ctx.registry.values()].flatMap((r) => [...r.fibers])) await fiber.dispose()
  await rm(base, { recursive: true, force: true })
}

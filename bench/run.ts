// Runs every bench/*.ts (except this file) in its own process and writes bench/results.md.
// `--tiny` (or BENCH_TINY=1) runs each once at a tiny size, as the test suite does, and writes nothing.
import { execFileSync } from 'node:child_process'
import { readdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const tiny = args.includes('--tiny') || process.env.BENCH_TINY === '1'
const only = args.filter((a) => a !== '--tiny')
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .filter((f) => !only.length || only.some((o) => f.startsWith(o)))
  .sort()
const env = tiny ? { ...process.env, BENCH_TINY: '1' } : process.env
// Other work on the machine skews every figure; the header says how busy it was.
const loadAtStart = loadavg()[0]
const sections: string[] = []
for (const file of benches) {
  console.error(`bench: ${file}`)
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(here, file)], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  })
  process.stdout.write(out)
  sections.push(out.trim())
}
const header = `# Benchmark results\n\nWritten by \`pnpm bench\` on ${new Date().toISOString().slice(0, 10)}; ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0].toFixed(1)} at the end. Each section measures dshkit and its baseline in the same process.\n`
if (!only.length && !tiny) writeFileSync(join(here, 'results.md'), `${header}\n${sections.join('\n\n')}\n`)

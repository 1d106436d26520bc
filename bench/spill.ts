// Spilling a huge tool output with spill-local (streamed, temp file + rename) against a
// plain fs.promises.writeFile of the same string, in the same run; plus peak RSS growth of each,
// measured in a fresh child process per case so one case's freed memory cannot hide another's.
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import SpillLocal from '@dshkit/spill-local'
import type { SpillService } from '@dshkit/spill'
import { machine, table, tiny } from './support/measure.js'

const MB = 1024 * 1024
// Tiny mode (the test suite) stores one 100 KB output once.
const SIZES = tiny ? [0.1] : [1, 10, 50]
const RUNS: Record<number, number> = tiny ? { 0.1: 1 } : { 1: 41, 10: 11, 50: 5 }
const log = (message: string) => process.stderr.write(`spill: ${message}\n`)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})

/** Log-like text mixing ASCII with 2-, 3- and 4-byte characters, `bytes` long in UTF-8 (give or take a line). */
function output(bytes: number): string {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(8, '0')} INFO request handled — café 漢字 ✓ 🎉 status=200 bytes=${(i * 7) % 9973}\n`
    lines.push(line)
    size += Buffer.byteLength(line)
  }
  return lines.join('')
}

/** `dir` undefined = the default private temp dir (no fsync); a configured dir fsyncs each spill. */
async function openStore(dir?: string) {
  const ctx = new Context()
  const fiber = await ctx.plugin(SpillLocal, { dir, maxTotalBytes: 1024 * MB })
  return { spill: ctx.get('spill') as SpillService, fiber }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Child mode: one contender, one size; prints the peak RSS growth in bytes. */
async function rssChild(contender: string, bytes: number) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-spill-rss-'))
  const { spill, fiber } = await openStore()
  const text = output(bytes)
  // Warm both paths on a small output so code loading is not counted.
  await spill.put(output(64 * 1024))
  await writeFile(join(dir, 'warm'), output(64 * 1024))
  gc()
  await new Promise((r) => setTimeout(r, 50))
  const before = process.memoryUsage().rss
  let peak = before
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 1)
  if (contender === 'spill') await spill.put(text)
  else await writeFile(join(dir, 'plain'), text)
  peak = Math.max(peak, process.memoryUsage().rss)
  clearInterval(sample)
  await fiber.dispose()
  await rm(dir, { recursive: true, force: true })
  process.stdout.write(JSON.stringify({ growth: peak - before, bytes: Buffer.byteLength(text) }))
}

function rssOf(contender: string, bytes: number): { growth: number; bytes: number } {
  const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--rss', contender, String(bytes)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return JSON.parse(out)
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-spill-'))
  const fast = await openStore()
  const durable = await openStore(join(dir, 'spills'))
  const rows: (string | number)[][] = []
  let worstRatio = 0
  let worstDurable = 0
  let worstRss = 0
  try {
    for (const size of SIZES) {
      const text = output(size * MB)
      const bytes = Buffer.byteLength(text)
      const put: number[] = []
      const synced: number[] = []
      const plain: number[] = []
      const putWith = (spill: SpillService) => async () => {
        const { id } = await spill.put(text)
        return () => spill.delete(id)
      }
      for (const { spill } of [fast, durable]) await spill.put(text).then(({ id }) => spill.delete(id)) // warm-up
      for (let run = 0; run < RUNS[size]; run++) {
        // Interleaved, rotating which goes first, so disk and GC noise hit all alike.
        const contenders: [number[], () => Promise<unknown>][] = [
          [put, putWith(fast.spill)],
          [synced, putWith(durable.spill)],
          [
            plain,
            async () => {
              const path = join(dir, `plain-${run}`)
              await writeFile(path, text)
              return () => rm(path)
            },
          ],
        ]
        for (let i = 0; i < run % 3; i++) contenders.push(contenders.shift()!)
        for (const [times, op] of contenders) {
          gc()
          const start = process.hrtime.bigint()
          const cleanup = (await op()) as () => Promise<unknown>
          times.push(Number(process.hrtime.bigint() - start) / 1e6)
          await cleanup()
        }
      }
      const putMs = median(put)
      const syncedMs = median(synced)
      const plainMs = median(plain)
      log(`${size} MB: put ${putMs.toFixed(1)} ms, put+fsync ${syncedMs.toFixed(1)} ms, writeFile ${plainMs.toFixed(1)} ms; measuring RSS`)
      const rssPut = rssOf('spill', bytes)
      const rssPlain = rssOf('plain', bytes)
      worstRatio = Math.max(worstRatio, putMs / plainMs)
      worstDurable = Math.max(worstDurable, syncedMs / plainMs)
      worstRss = Math.max(worstRss, rssPut.growth / rssPut.bytes)
      rows.push([
        `${size} MB`,
        putMs,
        plainMs,
        putMs / plainMs,
        syncedMs,
        syncedMs / plainMs,
        rssPut.growth / MB,
        rssPut.growth / rssPut.bytes,
        rssPlain.growth / MB,
        rssPlain.growth / rssPlain.bytes,
      ])
    }
  } finally {
    await fast.fiber.dispose()
    await durable.fiber.dispose()
    await rm(dir, { recursive: true, force: true })
  }

  console.log(`## spill

Storing one tool output with spill-local \`put\` (UTF-8 encoded 1 Mi characters at a time into one reused
buffer, temp file + rename) against \`fs.promises.writeFile\` of the same string, median ms over
${SIZES.map((s) => `${RUNS[s]} runs at ${s} MB`).join(', ')}, interleaved (${machine()}). \`put\` uses the default
private temp dir (no fsync); \`put + fsync\` a configured \`dir\`, whose spills are fsynced because they outlive
the process. Peak RSS growth (default store) is sampled every 1 ms during one write in a fresh child process
per case, relative to the output's UTF-8 size.

${table(['output', 'put ms', 'writeFile ms', 'put / writeFile', 'put + fsync ms', '+ fsync / writeFile', 'put peak RSS MB', 'put RSS / output', 'writeFile peak RSS MB', 'writeFile RSS / output'], rows)}

Worst time ratio ${worstRatio.toFixed(2)} for the default store (target ≤ 1.3; ${worstDurable.toFixed(2)} with fsync, which
writeFile does not do) and worst RSS growth ${worstRss.toFixed(2)}× the output (target ≤ 1.5×): a put holds at most
one ~3 MB encode buffer, where \`writeFile\` first encodes the whole string into one buffer of its full size.
`)
}

const args = process.argv.slice(2)
if (args[0] === '--rss') await rssChild(args[1], Number(args[2]))
else await main()

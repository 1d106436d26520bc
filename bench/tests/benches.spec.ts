import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'

const run = promisify(execFile)
const bench = join(dirname(fileURLToPath(import.meta.url)), '..')
const repo = join(bench, '..')
const benches = readdirSync(bench)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .sort()

// Markdown table rows after the header separator: the figures a bench printed.
function figures(section: string): string[][] {
  const lines = section.split('\n')
  const rows: string[][] = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^\| (---|) /.test(lines[i]) || !lines[i].includes('---')) continue
    for (let j = i + 1; j < lines.length && lines[j].startsWith('|'); j++)
      rows.push(
        lines[j]
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      )
  }
  return rows
}

// Every bench runs once at a tiny size (BENCH_TINY=1), as `pnpm bench` runs it, so a broken bench
// fails CI. Needs `pnpm build` first, which `pnpm test` does. Timing is not judged here.
describe('bench', () => {
  test('finds the benches', () => expect(benches).toEqual(expect.arrayContaining(['pipeline.ts', 'timeout.ts'])))

  test('no file under bench/ is hidden by .gitignore (a clean clone must have them all)', async () => {
    const { stdout } = await run('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--', 'bench'], { cwd: repo })
    expect(stdout.split('\n').filter((f) => f && !f.startsWith('bench/.tmp/'))).toEqual([])
  })

  test.each(benches)(
    '%s runs at a tiny size and prints its section with figures',
    async (file) => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', '--expose-gc', join(bench, file)], {
        cwd: repo,
        env: { ...process.env, BENCH_TINY: '1' },
        maxBuffer: 16 << 20,
      }).catch((error) => {
        throw new Error(`bench/${file} failed:\n${error.stderr || error.message}`)
      })
      expect(stdout.trim()).toMatch(new RegExp(`^## ${file.replace(/\.ts$/, '')}\n`))
      const rows = figures(stdout)
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) {
        // Every row has at least one measured number, and nothing printed NaN or undefined.
        expect(
          row.some((cell) => /^-?\d+(\.\d+)?×?$/.test(cell)),
          row.join(' | '),
        ).toBe(true)
        for (const cell of row) expect(cell).not.toMatch(/NaN|undefined|Infinity/)
      }
    },
    90_000,
  )
})

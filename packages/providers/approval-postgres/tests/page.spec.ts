import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import ApprovalWeb from '@dshkit/approval-web'
import { launchBrowser } from './browser.js'
import { asker } from './child.js'
import { freshSchema, useServer, worker } from './helpers.js'

const server = useServer()
let browser: BrowserContext
let close: () => Promise<void>
const tabs: Page[] = []

beforeAll(async () => {
  ;({ browser, close } = await launchBrowser())
  tabs.push(await browser.newPage(), await browser.newPage())
}, 60_000)
afterAll(() => close?.())

/** A worker with its own approval page (approval-web, unchanged but for awaiting `answer()`). */
async function workerWithPage(schema: string, name: string) {
  const w = await worker({ connectionString: server.url, schema, worker: name })
  await w.plug(ApprovalWeb, { printUrl: false })
  return { ...w, url: (w.ctx as any).approvalWeb.url as string }
}

export async function open(url: string, n: number) {
  await tabs[n].goto(url)
  await tabs[n].locator('#connection[data-state="live"]').waitFor()
  return tabs[n]
}

const card = (page: Page, text: string) => page.locator('#pending .card', { hasText: text })

/** Posts an answer from inside the page, as its buttons do; resolves to the HTTP status. */
const post = (page: Page, body: { requestId: string; argumentsHash: string; decision: string }) =>
  page.evaluate(async (body) => {
    const token = new URLSearchParams((globalThis as any).location.search).get('token')!
    const response = await fetch('/api/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-approval-token': token },
      body: JSON.stringify(body),
    })
    return response.status
  }, body)

describe("the approval page on the team's asks, in Chromium", () => {
  test("worker A's ask shows on both workers' pages; allowed on B's page it runs once on A, and A's page shows it ended", async () => {
    const schema = freshSchema()
    const a = await workerWithPage(schema, 'A')
    const b = await workerWithPage(schema, 'B')
    const [pageA, pageB] = [await open(a.url, 0), await open(b.url, 1)]
    const call = a.call('make deploy')
    await card(pageA, 'make deploy').waitFor()
    await card(pageB, 'make deploy').locator('[data-action="allow"]').click()
    expect((await call).isError).toBe(false)
    expect(a.ran).toEqual(['make deploy'])
    for (const page of [pageA, pageB]) await card(page, 'make deploy').waitFor({ state: 'detached' })
    await expect(pageA.locator('#recent li').first().textContent()).resolves.toMatch(/allowed elsewhere/)
    await expect(pageB.locator('#recent li').first().textContent()).resolves.toMatch(/allowed once on the approval page/)
  })

  test('both pages answer one ask at once: exactly one answer lands across the two workers, the other gets 409', async () => {
    const schema = freshSchema()
    const a = await workerWithPage(schema, 'A')
    const b = await workerWithPage(schema, 'B')
    const [pageA, pageB] = [await open(a.url, 0), await open(b.url, 1)]
    const call = a.call('npm publish')
    await card(pageA, 'npm publish').waitFor()
    await card(pageB, 'npm publish').waitFor()
    const [ask] = b.approval.pending()
    const body = { requestId: ask.requestId, argumentsHash: ask.argumentsHash }
    const statuses = await Promise.all([post(pageA, { ...body, decision: 'deny' }), post(pageB, { ...body, decision: 'allow' })])
    expect([...statuses].sort()).toEqual([200, 409])
    expect((await call).isError).toBe(statuses[0] === 200)
    expect(a.ran).toEqual(statuses[1] === 200 ? ['npm publish'] : [])
  })
  test("always-allow on A's page stores a team grant that B's page lists; revoked on B's page, A asks again", async () => {
    const schema = freshSchema()
    const a = await workerWithPage(schema, 'A')
    const b = await workerWithPage(schema, 'B')
    const [pageA, pageB] = [await open(a.url, 0), await open(b.url, 1)]
    const first = b.call('make build', 'c1')
    await card(pageA, 'make build').locator('[data-action="always-exact"]').click()
    expect((await first).isError).toBe(false)
    // B's page learns of the grant from its poll of the shared table.
    await pageB.locator('#grants li[data-grant-id]').first().waitFor()
    expect((await b.call('make build', 'c2')).isError).toBe(false)
    await pageB.locator('#grants [data-action="revoke"]').first().click()
    await pageB.locator('#grants li[data-grant-id]').first().waitFor({ state: 'detached' })
    const again = b.call('make build', 'c3')
    await card(pageA, 'make build').locator('[data-action="deny"]').click()
    expect((await again).isError).toBe(true)
    expect(b.ran).toEqual(['make build', 'make build'])
  })
  test("a worker killed while its ask is on B's page: the card ends with the stale note, and a reload lists it as stale", async () => {
    const schema = freshSchema()
    const b = await worker({ connectionString: server.url, schema, worker: 'B', leaseMs: 600 })
    await b.plug(ApprovalWeb, { printUrl: false })
    const page = await open((b.ctx as any).approvalWeb.url, 0)
    const child = asker(server.url, schema, 'doomed', 600)
    const requestId = await child.asked()
    await card(page, 'deploy prod').waitFor()
    child.proc.kill('SIGKILL')
    await card(page, 'deploy prod').waitFor({ state: 'detached' })
    await expect(page.locator('#recent li').first().textContent()).resolves.toMatch(/worker doomed stopped renewing its lease.*the call never ran/)
    await page.reload()
    const stale = page.locator(`#stale li[data-request-id="${requestId}"]`)
    await stale.waitFor()
    await expect(stale.textContent()).resolves.toMatch(/stale.*shell.*worker doomed stopped renewing its lease/)
  })
})

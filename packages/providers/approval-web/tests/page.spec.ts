import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { cleanup, eventually, tempDir } from '@dshkit/testing'
import { bootWeb, launchBrowser } from './helpers.js'

const fixture = fileURLToPath(new URL('./fixtures/pending-child.mjs', import.meta.url))

let browser: BrowserContext
let close: () => Promise<void>
const pages: Page[] = []

beforeAll(async () => {
  ;({ browser, close } = await launchBrowser())
  pages.push(await browser.newPage(), await browser.newPage())
}, 60_000)
afterAll(() => close?.())
afterEach(cleanup)

type Web = Awaited<ReturnType<typeof bootWeb>>

/** Opens the page in tab `n` and waits until its WebSocket is live. */
async function open(web: Web, n = 0) {
  const page = pages[n]
  await page.goto(web.url)
  await page.locator('#connection[data-state="live"]').waitFor()
  return page
}

const card = (page: Page, text?: string) => (text ? page.locator('#pending .card', { hasText: text }) : page.locator('#pending .card'))

describe('approval page in a real browser', () => {
  it('approve: the ask shows live with tool, arguments, who and why; allow once runs the call', async () => {
    const web = await bootWeb()
    const page = await open(web)
    const call = web.call('echo', { text: 'hello <b>world</b>' })
    const shown = card(page, 'hello')
    await shown.waitFor()
    await expect(shown.locator('.tool').textContent()).resolves.toBe('echo')
    await expect(shown.locator('.source').textContent()).resolves.toBe('test-policy')
    await expect(shown.locator('.reason').textContent()).resolves.toBe('every call needs a human')
    // Escaped as text: the markup in the arguments is shown, never rendered.
    await expect(shown.locator('.arguments').textContent()).resolves.toContain('"text": "hello <b>world</b>"')
    expect(await shown.locator('.arguments b').count()).toBe(0)
    await expect(shown.locator('.waited').textContent()).resolves.toMatch(/^waiting \d+s$/)
    await shown.locator('[data-action="allow"]').click()
    const result = await call
    expect(result.isError).toBe(false)
    expect(web.ran).toEqual([{ text: 'hello <b>world</b>' }])
    await card(page).first().waitFor({ state: 'detached' })
    await expect(page.locator('#recent li').first().getAttribute('data-outcome')).resolves.toBe('allowed')
  })

  it('deny with a reason: the model sees the reason, the call never runs', async () => {
    const web = await bootWeb()
    const page = await open(web)
    const call = web.call('write', { text: 'x', path: '/etc/passwd' })
    const shown = card(page, '/etc/passwd')
    await shown.locator('.deny-reason').fill('not outside the project, write to ./out instead')
    await shown.locator('[data-action="deny"]').click()
    const result = await call
    expect(result.isError && result.error.code).toBe('DENIED')
    expect(result.isError && result.error.message).toMatch(/not outside the project, write to \.\/out instead/)
    expect(web.ran).toEqual([])
    await expect(page.locator('#recent li').first().textContent()).resolves.toMatch(/denied.*not outside the project/)
  })

  it('always allow this exact call: the same call is not asked again, other arguments are; revoke asks again', async () => {
    const web = await bootWeb()
    const page = await open(web)
    const first = web.call('echo', { text: 'build' })
    await card(page, 'build').locator('[data-action="always-exact"]').click()
    expect((await first).isError).toBe(false)
    await page.locator('#grants li[data-grant-id]').first().waitFor()
    await expect(page.locator('#grants li').first().textContent()).resolves.toMatch(/exact.*echo/)
    let asked = 0
    web.ctx.on('approval/requested', () => void asked++)
    // Same tool, same arguments (keys in any order): allowed by the grant, nobody asked.
    expect((await web.call('echo', { text: 'build' })).isError).toBe(false)
    expect(asked).toBe(0)
    // Different arguments: asked.
    const other = web.call('echo', { text: 'build --force' })
    await card(page, 'build --force').waitFor()
    expect(asked).toBe(1)
    await card(page, 'build --force').locator('[data-action="deny"]').click()
    expect((await other).isError).toBe(true)
    // Revoked on the page: the exact call is asked again.
    await page.locator('#grants [data-action="revoke"]').first().click()
    await page.locator('#grants li[data-grant-id]').first().waitFor({ state: 'detached' })
    const again = web.call('echo', { text: 'build' })
    await card(page, 'build').waitFor()
    await card(page, 'build').locator('[data-action="allow"]').click()
    expect((await again).isError).toBe(false)
  })

  it('always allow calls matching a rule the user edits first', async () => {
    const web = await bootWeb()
    const page = await open(web)
    const first = web.call('write', { text: 'a', path: 'out/a.txt' })
    const shown = card(page, 'out/a.txt')
    await shown.locator('[data-action="rule-edit"]').click()
    const editor = shown.locator('textarea.rule')
    expect(JSON.parse(await editor.inputValue())).toEqual({ tool: 'write', when: { text: 'a', path: 'out/a.txt' } })
    await editor.fill('{ "tool": "write", "when": { "path": "out/**" }')
    await shown.locator('[data-action="always-rule"]').click()
    await expect(shown.locator('.error').textContent()).resolves.toMatch(/not valid JSON/)
    await editor.fill('{ "tool": "write", "when": { "path": "out/**" } }')
    await shown.locator('[data-action="always-rule"]').click()
    expect((await first).isError).toBe(false)
    await expect(page.locator('#grants li').first().textContent()).resolves.toMatch(/rule/)
    let asked = 0
    web.ctx.on('approval/requested', () => void asked++)
    expect((await web.call('write', { text: 'b', path: 'out/deep/b.txt' })).isError).toBe(false)
    expect(asked).toBe(0)
    const outside = web.call('write', { text: 'c', path: 'elsewhere/c.txt' })
    await card(page, 'elsewhere/c.txt').waitFor()
    await card(page, 'elsewhere/c.txt').locator('[data-action="deny"]').click()
    expect((await outside).isError).toBe(true)
  })

  it('two tabs race: the first answer wins, the other tab sees the outcome and its answer is refused', async () => {
    const web = await bootWeb()
    const [a, b] = [await open(web, 0), await open(web, 1)]
    const call = web.call('echo', { text: 'race' })
    await card(a, 'race').waitFor()
    await card(b, 'race').waitFor()
    // Both tabs post at once (tab a allows, tab b denies); the server takes exactly one.
    const [ask] = (await web.web.state()).pending
    const statuses = await Promise.all(
      [a, b].map((page, i) =>
        page.evaluate(
          async ({ requestId, argumentsHash, decision }) => {
            const token = new URLSearchParams((globalThis as any).location.search).get('token')!
            const response = await fetch('/api/answer', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-approval-token': token },
              body: JSON.stringify({ requestId, argumentsHash, decision }),
            })
            return response.status
          },
          { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: i === 0 ? 'allow' : 'deny' },
        ),
      ),
    )
    expect([...statuses].sort()).toEqual([200, 409])
    const result = await call
    expect(result.isError).toBe(statuses[0] !== 200)
    for (const page of [a, b]) {
      await card(page, 'race').waitFor({ state: 'detached' })
      await expect(page.locator('#recent li').first().getAttribute('data-outcome')).resolves.toMatch(/^(allowed|denied)$/)
    }
    // Clicking in both tabs: one wins, the loser's card is already gone or shows the refusal.
    const second = web.call('echo', { text: 'click race' })
    await card(a, 'click race').waitFor()
    await card(b, 'click race').waitFor()
    // Both buttons pressed in the same instant (a user-level click waits for a card that is already gone).
    await Promise.all([a, b].map((page) => page.evaluate(() => (globalThis as any).document.querySelector('#pending .card [data-action="allow"]').click())))
    expect((await second).isError).toBe(false)
    expect(web.ran).toHaveLength(result.isError ? 1 : 2)
    await card(b, 'click race').waitFor({ state: 'detached' })
  })

  it('an aborted call disappears from the page with its outcome', async () => {
    const web = await bootWeb()
    const page = await open(web)
    const controller = new AbortController()
    const call = web.call('echo', { text: 'abort me' }, { signal: controller.signal })
    await card(page, 'abort me').waitFor()
    controller.abort()
    await call
    await card(page, 'abort me').waitFor({ state: 'detached' })
    await expect(page.locator('#recent li').first().getAttribute('data-outcome')).resolves.toBe('cancelled')
    expect(web.ran).toEqual([])
  })

  it('a cross-origin page cannot answer, even knowing the token', async () => {
    const web = await bootWeb()
    const call = web.call('echo', { text: 'csrf target' })
    await eventually(async () => expect((await web.web.state()).pending).toHaveLength(1))
    const [ask] = (await web.web.state()).pending
    const evil: Server = createServer((_req, res) => res.end('<!doctype html><title>evil</title>'))
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
    const seen: number[] = []
    web.ctx.on('approval/answered', () => void seen.push(1))
    try {
      const page = pages[0]
      await page.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`)
      const outcome = await page.evaluate(
        async ({ origin, token, ask }) => {
          const body = JSON.stringify({ requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' })
          // A "simple" request needs no preflight, so it reaches the server; the Origin check refuses it.
          // (Its response is also withheld from the other origin: Cross-Origin-Resource-Policy same-origin.)
          await fetch(`${origin}/api/answer?token=${token}`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }).catch(
            () => {},
          )
          // A JSON request is preflighted; the server grants no CORS, so the browser never sends it.
          const json = await fetch(`${origin}/api/answer`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-approval-token': token },
            body,
          }).then(
            () => 'sent',
            (e) => `blocked: ${e.message}`,
          )
          return json
        },
        { origin: web.origin, token: web.token, ask },
      )
      expect(outcome).toMatch(/^blocked/)
    } finally {
      evil.close()
    }
    expect((await web.web.state()).pending).toHaveLength(1)
    expect(seen).toEqual([])
    expect(web.ran).toEqual([])
    const page = await open(web)
    await card(page, 'csrf target').locator('[data-action="deny"]').click()
    expect((await call).isError).toBe(true)
  })

  it('after a restart, an ask the earlier run left open shows as stale and cannot be answered', async () => {
    const dir = await tempDir('approval-web-restart-')
    const log = join(dir, 'session.jsonl')
    const child = spawn(process.execPath, [fixture, log, join(dir, 'grants.json')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.stderr.on('data', (chunk) => {
      out += chunk
    })
    const gone = new Promise((resolve) => child.on('exit', resolve))
    await eventually(() => expect(out).toMatch(/ASKED \S+/), { timeoutMs: 15_000 })
    const requestId = /ASKED (\S+)/.exec(out)![1]
    child.kill('SIGKILL')
    await gone
    const web = await bootWeb({ log })
    const page = await open(web)
    const stale = page.locator(`#stale li[data-request-id="${requestId}"]`)
    await stale.waitFor()
    await expect(stale.textContent()).resolves.toMatch(/stale.*write.*left behind.*never ran/)
    expect(await page.locator('#pending .card').count()).toBe(0)
    // Not answerable, even by a request crafted with the right id and hash.
    const [entry] = web.ctx.approval.stale()
    const response = await page.evaluate(
      async ({ requestId, argumentsHash }) => {
        const token = new URLSearchParams((globalThis as any).location.search).get('token')!
        const response = await fetch('/api/answer', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-approval-token': token },
          body: JSON.stringify({ requestId, argumentsHash, decision: 'allow' }),
        })
        return { status: response.status, error: ((await response.json()) as any).error }
      },
      { requestId, argumentsHash: entry.argumentsHash },
    )
    expect(response).toEqual({ status: 410, error: expect.stringMatching(/earlier run.*stale/) })
    expect(await web.ctx.approval.grants.list()).toEqual([])
  }, 40_000)

  it('latency: from ask to the page showing it', async () => {
    const web = await bootWeb()
    const page = await open(web)
    const seen = new Map<string, number>()
    await page.exposeFunction('__shown', (text: string) => void seen.set(text, performance.now()))
    await page.evaluate(() => {
      const { document, MutationObserver, __shown } = globalThis as any
      new MutationObserver((records: any[]) => {
        for (const record of records)
          for (const node of record.addedNodes) {
            const text = node.querySelector?.('.arguments')?.textContent
            if (text) __shown(text)
          }
      }).observe(document.getElementById('pending'), { childList: true })
    })
    const figures: number[] = []
    for (let i = 0; i < 15; i++) {
      const marker = `latency-${i}`
      const start = performance.now()
      const call = web.call('echo', { text: marker })
      await eventually(() => expect([...seen.keys()].some((text) => text.includes(marker))).toBe(true))
      const end = [...seen.entries()].find(([text]) => text.includes(marker))![1]
      figures.push(end - start)
      const [ask] = (await web.web.state()).pending
      expect(web.ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })).toEqual({ ok: true })
      await call
    }
    figures.sort((x, y) => x - y)
    const median = figures[Math.floor(figures.length / 2)]
    const p95 = figures[Math.floor(figures.length * 0.95) - 1]
    console.log(
      `approval-web latency, ask → shown on the page (${figures.length} asks): median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${figures.at(-1)!.toFixed(1)} ms`,
    )
    // A sanity bound only (the figure is reported, not asserted): a page that needs a reload would never show it.
    expect(median).toBeLessThan(2000)
  }, 60_000)
})

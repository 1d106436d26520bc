import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { z } from 'zod'
import { boot, tempDir } from '@dshkit/testing'
import UserApproval from '@dshkit/user-approval'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import ApprovalWeb from '../src/index.js'

/** The Debian chromium (what .ci/run installs); CHROMIUM_PATH overrides. */
export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((path) => path && existsSync(path))
  if (!found) throw new Error('approval-web browser tests need Debian chromium: apt-get install -y chromium (or set CHROMIUM_PATH)')
  return found
}

/** One headless chromium per test file (beforeAll), with a fresh profile; `close()` it in afterAll. */
export async function launchBrowser(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'approval-web-profile-'))
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    // Without the networking flags chromium floods a closed network with refused connections.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1100, height: 800 },
  })
  return {
    browser,
    close: async () => {
      await browser.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

export interface WebOptions {
  /** user-approval config on top of the test defaults. */
  approval?: Record<string, unknown>
  web?: Record<string, unknown>
  /** A JSONL session log to keep the session in (else no session). */
  log?: string
}

/** Tools `echo` and `write` (each asks through a policy), user-approval (headless, grants in a temp file) and the approval page. */
export async function bootWeb({ approval = {}, web = {}, log }: WebOptions = {}) {
  const dir = log ? dirname(log) : await tempDir('approval-web-')
  const ran: unknown[] = []
  const tools = ['echo', 'write', 'raw'].map((name) => ({
    name,
    description: name,
    // `raw` takes any JSON, so hostile shapes reach the page unchanged.
    parameters: name === 'raw' ? z.any() : z.object({ text: z.string(), path: z.string().optional() }),
    execute: (args: unknown) => (ran.push(args), `ran ${name}`),
  }))
  const asker = {
    name: 'test-policy',
    inject: ['tools'],
    apply: (ctx: any) => ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'every call needs a human', source: 'test-policy' })),
  }
  const booted = await boot({
    tools,
    plugins: [
      ...(log ? [[SessionStoreJsonl, { path: log }] as [any, unknown]] : []),
      asker,
      [UserApproval, { responder: 'headless', grants: join(dir, 'grants.json'), timeoutMs: 60_000, ...approval }],
      [ApprovalWeb, { printUrl: false, ...web }],
    ],
  })
  const web$ = booted.ctx.get('approvalWeb')!
  return { ...booted, dir, ran, web: web$, url: web$.url, origin: new URL(web$.url).origin, token: web$.token }
}

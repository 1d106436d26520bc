// Regenerates docs/page.png: a few pending asks, one answered, one grant, in headless chromium.
// Run from the repo after a build: node packages/providers/approval-web/scripts/screenshot.mjs
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { chromium } from 'playwright-core'
import { z } from 'zod'
import Tools from '@dshkit/tools'
import UserApproval from '@dshkit/user-approval'
import ApprovalWeb from '../lib/index.js'

const out = fileURLToPath(new URL('../docs/page.png', import.meta.url))
const dir = await mkdtemp(join(tmpdir(), 'approval-web-shot-'))
const ctx = new Context()
await ctx.plugin(Tools)
await ctx.plugin({
  name: 'permission-policy',
  inject: ['tools'],
  apply(ctx) {
    const args = z.object({}).passthrough()
    for (const name of ['shell', 'fs_write', 'fs_edit']) ctx.tools.register({ name, description: name, parameters: args, execute: () => 'ok' })
    ctx.on('tools/pre-execute', async (exec) => ({
      kind: 'ask',
      source: 'permission-policy',
      reason: exec.name === 'shell' ? 'rule 3: commands outside the allow list need a human' : 'rule 5: writes outside src/ need a human',
    }))
  },
})
await ctx.plugin(UserApproval, { responder: 'headless', grants: join(dir, 'grants.json') })
await ctx.plugin(ApprovalWeb, { printUrl: false })
await new Promise((resolve) => setTimeout(resolve, 200))
const web = ctx.get('approvalWeb')
await ctx.approval.grants.add({ kind: 'rule', rule: { tool: 'shell', command: 'npm test*' }, by: 'web' })

const run = (callId, name, args) => ctx.tools.execute({ callId, name, arguments: args })
const first = run('call_01', 'shell', { command: 'git status --short' })
let ask
while (!(ask = (await web.state()).pending[0])) await new Promise((resolve) => setTimeout(resolve, 20))
ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })
await first
void run('call_02', 'shell', { command: 'npm install left-pad@1.3.0 && npm test', cwd: 'packages/api' })
void run('call_03', 'fs_write', {
  path: '../deploy/.env.production',
  content: 'DATABASE_URL=postgres://app@db.internal/app\nLOG_LEVEL=debug\n' + 'FEATURE_FLAGS=' + 'x,'.repeat(900) + '\n',
})

const profile = await mkdtemp(join(tmpdir(), 'approval-web-profile-'))
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/lib/chromium/chromium',
  headless: true,
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
  viewport: { width: 1000, height: 1200 },
  colorScheme: 'light',
})
const page = await browser.newPage()
await page.goto(web.url)
await page.locator('#pending .card').nth(1).waitFor()
await new Promise((resolve) => setTimeout(resolve, 2200)) // let "waiting Ns" count up
await page.screenshot({ path: out, fullPage: true })
await browser.close()
await rm(profile, { recursive: true, force: true })
await rm(dir, { recursive: true, force: true })
process.exit(0)

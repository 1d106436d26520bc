import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'

/** Debian's chromium, driven by playwright-core (as approval-web's own tests do); CHROMIUM_PATH overrides. */
export async function launchBrowser(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((path) => path && existsSync(path))
  if (!executablePath) throw new Error('the page tests need Debian chromium: apt-get install -y chromium (or set CHROMIUM_PATH)')
  const profile = await mkdtemp(join(tmpdir(), 'approval-postgres-profile-'))
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
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
  })
  return {
    browser,
    close: async () => {
      await browser.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

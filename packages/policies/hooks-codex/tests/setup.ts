import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { cleanup, tempDir } from '@dshkit/testing'
import { afterEach, beforeEach } from 'vitest'

/**
 * Gives each test its own $CODEX_HOME (where the user hooks.json and config.toml live) and restores it after.
 * Returns the current home.
 */
export function useCodexHome(): () => string {
  let home = ''
  const saved = { CODEX_HOME: process.env.CODEX_HOME }
  beforeEach(async () => {
    home = await tempDir('codex-home-')
    process.env.CODEX_HOME = home
  })
  afterEach(async () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
    await cleanup()
  })
  return () => home
}

/** Writes `content` as JSON (or text) at `path`, creating its directory. */
export async function put(path: string, content: unknown) {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content))
}

export const lines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean)

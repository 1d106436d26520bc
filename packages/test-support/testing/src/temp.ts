import { execFile } from 'node:child_process'
import { chmod, mkdtemp, readdir, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { onCleanup } from './cleanup.js'

const run = promisify(execFile)

/**
 * A fresh private directory under the OS temp dir, as its real path (so a test can compare it to
 * what a provider reports after `realpath`). `cleanup()` removes it.
 */
export async function tempDir(prefix = 'dshkit-test-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  onCleanup(() => removeDir(dir))
  return dir
}

/**
 * Removes `dir` even after a test made it unwritable: a plain `rm` first; if that fails,
 * clears the immutable flag (root's way to make a dir read-only) and write-protection, then again.
 */
export async function removeDir(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true })
    return
  } catch {}
  await run('chattr', ['-R', '-i', dir]).catch(() => {})
  await makeWritable(dir)
  await rm(dir, { recursive: true, force: true })
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => {})
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) if (entry.isDirectory()) await makeWritable(join(dir, entry.name))
}

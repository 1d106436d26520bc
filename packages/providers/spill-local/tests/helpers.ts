import { execFile } from 'node:child_process'
import { rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

export const run = promisify(execFile)

export { tempDir, removeDir, captureLogs } from '@dshkit/testing'

/** Makes `dir` unwritable even for root: chmod for ordinary users, the immutable flag for root. */
export async function makeReadOnly(dir: string): Promise<boolean> {
  await import('node:fs/promises').then((fs) => fs.chmod(dir, 0o555))
  const probe = join(dir, '.probe')
  try {
    await writeFile(probe, 'x')
    await rm(probe)
  } catch {
    return true
  }
  await run('chattr', ['+i', dir]).catch(() => {})
  try {
    await writeFile(probe, 'x')
    await rm(probe)
    return false
  } catch {
    return true
  }
}

export async function exists(path: string) {
  return stat(path).then(
    () => true,
    () => false,
  )
}

import { execFile } from 'node:child_process'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Context, Logger } from 'cordis'

export const run = promisify(execFile)

export async function tempDir(prefix = 'spill-local-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

export async function removeDir(dir: string) {
  await run('chattr', ['-R', '-i', dir]).catch(() => {})
  await rm(dir, { recursive: true, force: true })
}

/** Mixed ASCII, 2-, 3- and 4-byte characters, with newlines: every boundary case of UTF-8. */
export function mixedText(bytes: number): string {
  const unit = 'line of ascii text, ünïcödé, 漢字かな, emoji 🎉🧪 and more\n'
  const unitBytes = Buffer.byteLength(unit)
  return unit.repeat(Math.ceil(bytes / unitBytes))
}

export function captureLogs(ctx: Context) {
  const messages: { type: string; name: string; text: string }[] = []
  ctx.logger.exporter({
    export: (m) => messages.push({ type: m.type, name: m.name, text: Logger.format({ colors: false, export() {} }, m) }),
  })
  return messages
}

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
  return stat(path).then(() => true, () => false)
}

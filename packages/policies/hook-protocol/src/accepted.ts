import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { HookSettingsError } from './settings.js'

/** What a person last accepted, per settings file: the sha256 of its bytes, or `absent` for a file that was not there. */
export interface AcceptedHooks {
  version: 1
  files: Record<string, string>
}

/** Where the snapshot lives by default: the project's `.dshkit` folder, which dsh-base hides from every tool. */
export const ACCEPTED_FILE = join('.dshkit', 'hooks-accepted.json')

/** The state a settings file is in now: the sha256 of its bytes, or `absent`. */
export function fileState(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'absent'
    throw new HookSettingsError(`cannot read the hook settings file ${file} to compare it with what was accepted: ${(error as Error).message}`)
  }
}

/** Reads the snapshot; a missing one is empty (nothing accepted yet). */
export function readAccepted(store: string): AcceptedHooks {
  let text: string
  try {
    text = readFileSync(store, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, files: Object.create(null) }
    throw new HookSettingsError(`cannot read the accepted-hooks snapshot ${store}: ${(error as Error).message}`)
  }
  try {
    const parsed = JSON.parse(text)
    if (parsed?.version !== 1 || typeof parsed.files !== 'object' || parsed.files === null || Array.isArray(parsed.files))
      throw new Error('not { version: 1, files }')
    const files: Record<string, string> = Object.create(null)
    for (const [file, state] of Object.entries(parsed.files)) if (typeof state === 'string') files[file] = state
    return { version: 1, files }
  } catch (error) {
    throw new HookSettingsError(`the accepted-hooks snapshot ${store} is damaged (${(error as Error).message}); delete it and run \`dshkit hooks accept\``)
  }
}

/** Writes the snapshot whole: a temp file beside it, then a rename. */
export function writeAccepted(store: string, accepted: AcceptedHooks) {
  mkdirSync(dirname(store), { recursive: true, mode: 0o700 })
  const temp = `${store}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  try {
    writeFileSync(temp, `${JSON.stringify(accepted, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    renameSync(temp, store)
  } catch (error) {
    rmSync(temp, { force: true })
    throw new HookSettingsError(`cannot write the accepted-hooks snapshot ${store}: ${(error as Error).message}`)
  }
}

/** The one line that refuses changed settings and says how to accept them. */
export function changedMessage(changed: readonly string[], store: string) {
  const projectDir = dirname(dirname(store))
  return `hook settings changed since they were last accepted: ${changed.join(', ')}; review the file${changed.length === 1 ? '' : 's'}, then run \`dshkit hooks accept --root ${projectDir}\` (or delete ${store} to accept all on the next start)`
}

/**
 * Claude Code's way with hooks: a file whose bytes differ from what a person last accepted (appeared, changed or went
 * away) is refused with one line. A file the snapshot does not know yet (its source was just configured) is taken as
 * it is, and so is every file on the first start: recorded by the returned function, called once the files loaded.
 */
export function checkAccepted(store: string, files: readonly string[]): () => void {
  const accepted = readAccepted(store)
  const changed: string[] = []
  let learned = false
  for (const file of new Set(files)) {
    const now = fileState(file)
    const before = accepted.files[file]
    if (before === undefined) {
      accepted.files[file] = now
      learned = true
    } else if (before !== now) {
      changed.push(now === 'absent' ? `${file} (removed)` : before === 'absent' ? `${file} (new)` : file)
    }
  }
  if (changed.length) throw new HookSettingsError(changedMessage(changed, store))
  return () => {
    if (learned) writeAccepted(store, accepted)
  }
}

/** `dshkit hooks accept`: records the present state of every file the snapshot knows. Returns them with what changed. */
export function acceptAll(store: string): { file: string; changed: boolean }[] {
  const accepted = readAccepted(store)
  const result = Object.keys(accepted.files).map((file) => {
    const now = fileState(file)
    const changed = accepted.files[file] !== now
    accepted.files[file] = now
    return { file, changed }
  })
  writeAccepted(store, accepted)
  return result
}

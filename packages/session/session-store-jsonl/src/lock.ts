import { randomBytes } from 'node:crypto'
import { unlinkSync } from 'node:fs'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'

// Lock files this process holds, shared by every copy of this module loaded in the process.
const held: Set<string> = (globalThis as any)[Symbol.for('dshkit.session-store-jsonl.locks')] ??= new Set<string>()

function releaseAllOnExit() {
  for (const lockPath of held) {
    try {
      unlinkSync(lockPath)
    } catch {}
  }
}

/** Another live writer holds the log. */
export class SessionLogLockedError extends Error {
  readonly code = 'SESSION_LOG_LOCKED'
  constructor(readonly path: string, readonly lockPath: string, readonly pid: number) {
    const who = pid === process.pid ? 'this process (another Context or plugin instance)' : `process ${pid}`
    super(`session log ${path} is already open for writing by ${who}; only one writer may append to a session log. `
      + `Close the other session first, or delete ${lockPath} if that process is gone.`)
    this.name = 'SessionLogLockedError'
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException)?.code

/** The pid in a lock file: a number, `null` when the file holds no pid, `undefined` when it is gone. */
async function readOwner(file: string): Promise<number | null | undefined> {
  try {
    const pid = Number.parseInt(await readFile(file, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined
    throw error
  }
}

/** A lock is stale when its writer is gone. Our own pid counts as alive only while this process holds the file. */
function isStale(file: string, owner: number | null) {
  if (owner === null) return true // locks are created whole, so one without a pid is debris, not a writer starting up
  return owner === process.pid ? !held.has(file) : !isAlive(owner)
}

/** Creates `file` with our pid already in it, atomically (it never exists empty), and holds it. False if it exists. */
async function take(file: string): Promise<boolean> {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}`
  await writeFile(temp, `${process.pid}\n`, { flag: 'wx' })
  try {
    await link(temp, file)
    // Held from the moment it exists, so another Context here never takes it for a stale one.
    if (!held.size) process.once('exit', releaseAllOnExit) // a normal exit without dispose leaves no lock behind
    held.add(file)
    return true
  } catch (error) {
    if (code(error) === 'EEXIST') return false
    throw error
  } finally {
    await unlink(temp).catch(() => {})
  }
}

async function drop(file: string) {
  if (!held.delete(file)) return
  if (!held.size) process.off('exit', releaseAllOnExit)
  await unlink(file).catch(() => {})
}

/**
 * Removes the lock if it is still stale. Removers take turns through `<lock>.takeover`, so one
 * that judged an old lock stale can never delete the fresh lock another opener just created.
 */
async function removeStale(lockPath: string) {
  const guard = `${lockPath}.takeover`
  if (!await take(guard)) {
    const owner = await readOwner(guard)
    // The guard outlives its remover only if that process died mid-takeover.
    if (owner !== undefined && isStale(guard, owner)) await unlink(guard).catch(() => {})
    else await new Promise((resolve) => setTimeout(resolve, 10))
    return
  }
  try {
    const owner = await readOwner(lockPath)
    if (owner !== undefined && isStale(lockPath, owner)) await unlink(lockPath).catch(() => {})
  } finally {
    await drop(guard)
  }
}

/**
 * Takes `<path>.lock`, holding our pid. A lock whose pid is dead (a crashed writer) is taken over;
 * a live one refuses. Resolves with the release function.
 */
export async function acquireLock(path: string): Promise<() => Promise<void>> {
  const lockPath = resolve(`${path}.lock`)
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await take(lockPath)) return () => drop(lockPath)
    const owner = await readOwner(lockPath)
    if (owner === undefined) continue // released meanwhile: try again
    if (!isStale(lockPath, owner)) throw new SessionLogLockedError(path, lockPath, owner as number)
    await removeStale(lockPath)
  }
  throw new Error(`could not take the lock ${lockPath} for session log ${path}: it keeps reappearing; is another writer starting up?`)
}

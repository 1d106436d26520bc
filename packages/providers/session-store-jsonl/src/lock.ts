import { randomBytes } from 'node:crypto'
import { unlinkSync } from 'node:fs'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'

// Lock files this process holds or is creating, counted per take (a drop must not erase a newer take of the same
// path), shared by every copy of this module loaded in the process.
const shared = ((globalThis as any)[Symbol.for('dshkit.session-store-jsonl.lock-counts')] ??= {
  held: new Map<string, number>(),
  taking: new Map<string, number>(),
})
const held: Map<string, number> = shared.held
const taking: Map<string, number> = shared.taking
const count = (map: Map<string, number>, file: string, by: 1 | -1) => {
  const next = (map.get(file) ?? 0) + by
  if (next > 0) map.set(file, next)
  else map.delete(file)
}

function releaseAllOnExit() {
  for (const lockPath of held.keys()) {
    try {
      unlinkSync(lockPath)
    } catch {}
  }
}

/** Another live writer holds the log. */
export class SessionLogLockedError extends Error {
  readonly code = 'SESSION_LOG_LOCKED'
  constructor(
    readonly path: string,
    readonly lockPath: string,
    readonly pid: number,
  ) {
    const who = pid === process.pid ? 'this process (another Context or plugin instance)' : `process ${pid}`
    super(
      `session log ${path} is already open for writing by ${who}; only one writer may append to a session log. ` +
        `Close the other session first, or delete ${lockPath} if that process is gone.`,
    )
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

/** A lock is stale when its writer is gone. Our own pid counts as alive only while this process holds or is creating the file. */
function isStale(file: string, owner: number | null) {
  if (owner === null) return true // locks are created whole, so one without a pid is debris, not a writer starting up
  return owner === process.pid ? !held.has(file) && !taking.has(file) : !isAlive(owner)
}

/** Creates `file` with our pid already in it, atomically (it never exists empty), and holds it. False if it exists. */
async function take(file: string): Promise<boolean> {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}`
  await writeFile(temp, `${process.pid}\n`, { flag: 'wx' })
  // Counted as ours before the link: the file exists before `link` resolves, and another Context here must not judge it stale.
  count(taking, file, 1)
  try {
    await link(temp, file)
    if (!held.size) process.once('exit', releaseAllOnExit) // a normal exit without dispose leaves no lock behind
    count(held, file, 1)
    return true
  } catch (error) {
    if (code(error) === 'EEXIST') return false
    throw error
  } finally {
    count(taking, file, -1)
    await unlink(temp).catch(() => {})
  }
}

/** Releases one take of `file`, once: removed while still counted as held, so no one here judges it stale meanwhile. */
function releaser(file: string) {
  let released = false
  return async () => {
    if (released) return
    released = true
    await unlink(file).catch(() => {})
    count(held, file, -1)
    if (!held.size) process.off('exit', releaseAllOnExit)
  }
}

/**
 * Removes the lock if it is still stale. Removers take turns through `<lock>.takeover`, so one
 * that judged an old lock stale can never delete the fresh lock another opener just created.
 */
async function removeStale(lockPath: string) {
  const guard = `${lockPath}.takeover`
  if (!(await take(guard))) {
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
    await releaser(guard)()
  }
}

/**
 * Takes `<path>.lock`, holding our pid. A lock whose pid is dead (a crashed writer) is taken over;
 * a live one refuses. Resolves with the release function.
 */
export async function acquireLock(path: string): Promise<() => Promise<void>> {
  const lockPath = resolve(`${path}.lock`)
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await take(lockPath)) return releaser(lockPath)
    const owner = await readOwner(lockPath)
    if (owner === undefined) continue // released meanwhile: try again
    if (!isStale(lockPath, owner)) throw new SessionLogLockedError(path, lockPath, owner as number)
    await removeStale(lockPath)
  }
  throw new Error(`could not take the lock ${lockPath} for session log ${path}: it keeps reappearing; is another writer starting up?`)
}

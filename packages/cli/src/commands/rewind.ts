import { realpath } from 'node:fs/promises'
import { checkSessionEvent, type SessionEvent } from '@dshkit/session'
import { JsonlSessionStore, readSessionLog } from '@dshkit/session-store-jsonl'
import { applyRewind, BlobStore, DEFAULT_MAX_FILE_BYTES, planRewind, readState, type RewindPlan, type RewindResult } from '@dshkit/fs-checkpoint'
import { visible } from '../terminal.js'

export interface RewindOptions {
  file: string
  to: string
  apply: boolean
  force: boolean
  root?: string
  json: boolean
}

/** Plans (and with `apply`, applies) restoring the files changed from call `to` on; the before-images live in `<log>.checkpoints`. */
export async function rewind(options: RewindOptions): Promise<number> {
  const blobs = new BlobStore(`${options.file}.checkpoints`)
  // Only files under the workspace are touched: a log (and its checkpoint folder) can be edited by whoever can write them.
  const root = await realpath(options.root ?? process.cwd())
  const plan = (events: readonly SessionEvent[]) => planRewind(events, options.to, { root, blobs, read: (path) => readState(path, DEFAULT_MAX_FILE_BYTES) })
  if (!options.apply) {
    const planned = await plan(await readLog(options.file))
    if (options.json) process.stdout.write(JSON.stringify({ plan: planned }) + '\n')
    else printPlan(planned, options)
    return 0
  }
  // Applying takes the log's writer lock, so a running session and a rewind never interleave.
  const store = new JsonlSessionStore(options.file, { warn: (message) => process.stderr.write(`dshkit: ${visible(message)}\n`) })
  let events: SessionEvent[]
  try {
    events = await store.load()
  } catch (error) {
    await store.close?.().catch(() => {})
    throw error
  }
  try {
    const planned = await plan(events)
    const result = await applyRewind(
      planned,
      { force: options.force },
      {
        blobs,
        maxFileBytes: DEFAULT_MAX_FILE_BYTES,
        record: (event) => store.append(checkSessionEvent(event)),
      },
    )
    if (options.json) process.stdout.write(JSON.stringify({ plan: planned, result }) + '\n')
    else printResult(result, planned, options)
    return result.failed.length ? 1 : 0
  } finally {
    await store.close?.()
  }
}

async function readLog(file: string): Promise<SessionEvent[]> {
  try {
    return (await readSessionLog(file, { missing: 'error' })).events
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'SESSION_LOG_NOT_A_FILE' || code === 'SESSION_LOG_TOO_LARGE' || code === 'SESSION_LOG_CORRUPT') throw error
    throw new Error(`${file}: cannot read session log: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`)
  }
}

const short = (hash: string) => (hash.length === 64 ? hash.slice(0, 12) : hash)
const say = (text: string) => process.stdout.write(visible(text) + '\n')

function printPlan(plan: RewindPlan, options: RewindOptions) {
  say(`Rewind ${options.file} to before call ${plan.to}:`)
  for (const change of plan.restore) say(`  restore  ${change.path} (now ${short(change.from)}, back to ${short(change.to)})`)
  for (const change of plan.delete) say(`  delete   ${change.path} (a recorded call created it)`)
  for (const skip of plan.skip) say(`  ${options.force && skip.force ? 'force   ' : 'skip    '} ${skip.path}: ${skip.reason}`)
  if (plan.unchanged.length) say(`  unchanged: ${plan.unchanged.length} file${plan.unchanged.length === 1 ? '' : 's'} already as before`)
  for (const item of plan.notTracked) say(`  changes not tracked: ${item.id} ${item.what}`)
  const todo = plan.restore.length + plan.delete.length + (options.force ? plan.skip.filter((s) => s.force).length : 0)
  say(todo ? `Nothing was changed; run again with --apply to apply this plan.` : 'Nothing to restore.')
}

function printResult(result: RewindResult, plan: RewindPlan, options: RewindOptions) {
  for (const path of result.restored) say(`  restored ${path}`)
  for (const path of result.deleted) say(`  deleted  ${path}`)
  for (const skip of result.skipped) say(`  skipped  ${skip.path}: ${skip.reason}`)
  for (const fail of result.failed) say(`  failed   ${fail.path}: ${fail.reason}`)
  for (const item of plan.notTracked) say(`  changes not tracked: ${item.id} ${item.what}`)
  if (result.rewindId) say(`Rewound to before ${options.to}; undo it with: dshkit rewind ${options.file} --to ${result.rewindId} --apply`)
  else say('Nothing to restore; nothing was changed.')
}

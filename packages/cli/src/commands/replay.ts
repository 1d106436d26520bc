import { explainer } from '../judgement.js'
import { compare, describeVerdict, recordedCalls, type ReplayedCall } from '../replay-diff.js'
import { bootRuntime, shutdown, type BootOptions } from '../runtime.js'
import { readSessionEvents } from '../session-source.js'
import { clip, visible } from '../terminal.js'

/** Exit code when a call that ran in the log would now be denied: distinct from bad input (1) and usage (2). */
export const NOW_DENIED_EXIT = 3

export interface ReplayOptions extends BootOptions {
  file: string
  json: boolean
}

/** `dshkit replay LOG --config other.yml`: re-judges every recorded call under another configuration, running nothing. */
export async function replay(options: ReplayOptions): Promise<number> {
  const read = await readSessionEvents(options.file, options.json)
  if (!read) return 0
  const calls = recordedCalls(read.events)
  const { ctx, problems } = await bootRuntime({ ...options, log: undefined, memoryOnly: true })
  const out = (text: string) => process.stdout.write(text + '\n')
  const replayed: ReplayedCall[] = []
  try {
    for (const problem of problems) {
      if (options.json) out(JSON.stringify({ type: 'error', file: options.config, message: problem }))
      else process.stderr.write(`dshkit: ${visible(problem)}\n`)
    }
    // A config that failed to load in part would judge with policies missing: refuse rather than report a false "allowed".
    if (problems.length) return 1
    const judge = explainer(ctx)
    for (const recorded of calls) {
      const { callId, name, arguments: args } = recorded.call
      const result = compare(recorded, await judge({ callId, name, arguments: args }))
      replayed.push(result)
      if (options.json) out(JSON.stringify({ type: 'call', ...result }))
      // A call a plugin could not judge (a hook not run) is shown even when unchanged: "unchanged" would be a guess.
      else if (result.changed || result.notJudged) out(replayLines(result))
    }
  } finally {
    await shutdown(ctx)
  }
  const summary = summarize(replayed)
  const under = options.config ?? 'the embedded default'
  if (options.json) out(JSON.stringify({ type: 'summary', config: under, ...summary, ...(read.torn ? { tornLine: read.torn.line } : {}) }))
  else {
    if (read.torn) out(`! line ${read.torn.line} of the log is a torn last write — ignored`)
    out(
      visible(
        `${summary.calls} recorded call(s) re-judged under ${under}, nothing ran: ${summary.unchanged} unchanged, ` +
          `${summary.nowDenied} that ran would now be denied, ${summary.nowAllowed} now allowed, ${summary.nowAsked} now asked, ${summary.otherChanges} other change(s)` +
          `${summary.notFullyJudged ? `; ${summary.notFullyJudged} not fully judged (a plugin could not judge without running something, see !): a real run may decide otherwise` : ''}`,
      ),
    )
  }
  return summary.nowDenied ? NOW_DENIED_EXIT : 0
}

const MARK = { allow: '+', ask: '?', deny: '✗', refused: '✗' } as const

function replayLines(call: ReplayedCall): string {
  const head = call.changed
    ? `${describeVerdict(call.before, true)} → ${describeVerdict(call.after, false)}`
    : `${describeVerdict(call.after, false)}, as recorded`
  const lines = [
    `${call.changed ? MARK[call.after.kind] : '='} ${visible(`${clip(call.name, 128)} [${clip(call.callId, 128)}] ${head}`)}${call.breaking ? '  (it ran)' : ''}`,
  ]
  lines.push(`    ${visible(truncate(JSON.stringify(call.arguments) ?? 'null', 160))}`)
  for (const note of call.notJudged ?? []) lines.push(`  ! ${visible(`${note.plugin} could not judge in a dry run: ${clip(note.why)}`)}`)
  return lines.join('\n')
}

function summarize(calls: ReplayedCall[]) {
  const changed = calls.filter((c) => c.changed)
  const nowDenied = changed.filter((c) => c.breaking).length
  const nowAllowed = changed.filter((c) => c.after.kind === 'allow').length
  const nowAsked = changed.filter((c) => c.after.kind === 'ask').length
  const notFullyJudged = calls.filter((c) => c.notJudged).length
  return {
    calls: calls.length,
    unchanged: calls.length - changed.length,
    changed: changed.length,
    nowDenied,
    nowAllowed,
    nowAsked,
    otherChanges: changed.length - nowDenied - nowAllowed - nowAsked,
    notFullyJudged,
  }
}

function truncate(text: string, max: number) {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

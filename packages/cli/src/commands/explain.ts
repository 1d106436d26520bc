import { hasReference, readCalls } from '../calls.js'
import { ruleOf } from '../decisions.js'
import { describeDecision, explainer, type Judgement } from '../judgement.js'
import { bootRuntime, shutdown, unknownTool, type BootOptions } from '../runtime.js'
import { clip, visible } from '../terminal.js'

export interface ExplainOptions extends BootOptions {
  file: string
  json: boolean
}

/** `dshkit explain CALLS.jsonl`: per call, what a run would decide and each plugin's turn, running nothing. */
export async function explain(options: ExplainOptions): Promise<number> {
  const out = (text: string) => process.stdout.write(text + '\n')
  const inputError = (line: number | undefined, message: string) => {
    if (options.json) out(JSON.stringify({ type: 'error', file: options.file, line, message }))
    else process.stderr.write(`dshkit: ${visible(`${line ? `${options.file}:${line}` : options.file}: ${message}`)}\n`)
  }
  const note = (line: number, message: string) => {
    if (options.json) out(JSON.stringify({ type: 'note', file: options.file, line, message }))
    else process.stderr.write(`dshkit: ${visible(`${options.file}:${line}: note: ${message}`)}\n`)
  }
  const { calls, errors } = await readCalls(options.file)
  const { ctx, problems } = await bootRuntime({ ...options, log: undefined, memoryOnly: true })
  let bad = problems.length + errors.length
  let partly = 0
  try {
    for (const problem of problems) inputError(undefined, problem)
    for (const error of errors) inputError(error.line, error.message)
    const judge = explainer(ctx)
    for (const call of calls) {
      // What `run` would refuse is an input problem here too, not a judgement.
      const unknown = unknownTool(ctx, call.name)
      if (unknown) {
        bad++
        inputError(call.line, unknown)
        continue
      }
      const judgement = await judge({ callId: call.callId, name: call.name, arguments: call.arguments })
      if (judgement.notJudged?.length) partly++
      if (options.json) out(JSON.stringify({ type: 'explain', line: call.line, ...judgement }))
      else out(judgementLines(judgement, `${options.file}:${call.line}`))
      // A {"$from"} reference is only resolved by running the call it names: judged as written, and said so.
      if (hasReference(call.arguments))
        note(call.line, 'its arguments refer to an earlier result, which explain does not run; judged with the reference as written')
    }
  } finally {
    await shutdown(ctx)
  }
  if (!options.json)
    process.stderr.write(
      `dshkit: ${calls.length} call(s) explained, nothing ran${partly ? `, ${partly} not fully judged (see !)` : ''}${bad ? `, ${bad} input problem(s)` : ''}\n`,
    )
  return bad ? 1 : 0
}

const MARK = { allow: '✓', ask: '?', deny: '✗' } as const

export function judgementLines(judgement: Judgement, where: string): string {
  // A listener that could not judge (a hook not run) may decide otherwise in a real run: the head line says so.
  const partly = judgement.notJudged?.length ? ` (not fully judged: ${judgement.notJudged.map((n) => n.plugin).join(', ')} did not run, see !)` : ''
  const lines = [
    `${MARK[judgement.decision.kind]} ${visible(`${where} ${clip(judgement.name, 128)} [${clip(judgement.callId, 128)}] ${describeDecision(judgement.decision)}${partly}`)}`,
  ]
  if (judgement.argumentsRewrittenBy?.length)
    lines.push(`  ↻ ${visible(`arguments rewritten by ${judgement.argumentsRewrittenBy.join(', ')}: ${clip(JSON.stringify(judgement.arguments) ?? 'null')}`)}`)
  for (const entry of judgement.trace) {
    const rule = ruleOf(entry.detail)
    const why = entry.reason ? ` — ${clip(entry.reason)}` : ''
    const ms = entry.ms === undefined ? '' : ` ${entry.ms} ms`
    lines.push(`    ${visible(`${entry.phase.padEnd(12)} ${entry.plugin.padEnd(20)} ${entry.decision}${ms}${rule ? ` ${clip(rule)}` : ''}${why}`)}`)
  }
  for (const note of judgement.notJudged ?? []) lines.push(`  ! ${visible(`${note.plugin} could not judge in a dry run: ${clip(note.why)}`)}`)
  return lines.join('\n')
}

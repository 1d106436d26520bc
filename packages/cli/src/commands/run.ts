import { performance } from 'node:perf_hooks'
import type { Context } from 'cordis'
import type { ContextMessage, ToolStop } from '@dshkit/tools'
import { MemorySessionStore } from '@dshkit/session'
import { JsonlSessionStore } from '@dshkit/session-store-jsonl'
import { hasReference, readCalls, resolveReferences, type CallLine } from '../calls.js'
import { json, outcomeLines, type Outcome } from '../report.js'
import { bootRuntime, lifecycle, shutdown, unknownTool, type BootOptions } from '../runtime.js'
import { visible } from '../terminal.js'
import { shownLog } from '../postgres-session.js'

export interface RunOptions extends BootOptions {
  file: string
  json: boolean
  /** Label used in messages instead of the file path (the bundled demo). */
  display?: string
}

/** What a run has seen so far: input problems, results by call id (for references), calls not recorded, the stop. */
interface RunState {
  bad: number
  reached: number
  values: Map<string, unknown>
  unrecorded: string[]
  stop?: ToolStop
}

/** Runs every call line; returns the exit code (0 all ran and were recorded, 1 some input was bad or a call went unrecorded, 3 a hook stopped the session, 130 interrupted). */
export async function run(options: RunOptions): Promise<number> {
  const output = runOutput(options)
  const { calls, errors } = await readCalls(options.file)
  const { ctx, problems } = await bootRuntime(options)
  const kept = options.log ? `; session log: ${await shownLog(options.log)}` : sessionKept(ctx)
  const page = options.approve === 'web' ? (ctx.get('approvalWeb') as { url?: string } | undefined) : undefined
  if (page?.url) process.stderr.write(`dshkit: approve tool calls at ${page.url}\n`)
  for (const problem of problems) output.inputError(undefined, problem)
  for (const error of errors) output.inputError(error.line, error.message)
  const state: RunState = { bad: errors.length + problems.length, reached: 0, values: new Map(), unrecorded: [] }
  const timings = trackDurations(ctx)
  const controller = new AbortController()
  const onSigint = () => (controller.signal.aborted ? process.exit(130) : controller.abort(new Error('interrupted (Ctrl-C)')))
  process.on('SIGINT', onSigint)
  const progress = startProgress(calls.length)
  pauseProgressWhileAsking(ctx, progress)
  // Hooks of the session's own moments run as under Claude Code: SessionStart first, SessionEnd last.
  const started = await lifecycle(ctx, { name: 'SessionStart', source: 'startup' })
  output.contexts(started?.contexts ?? [])
  state.stop = started?.stop
  try {
    for (const segment of state.stop ? [] : segments(calls)) {
      state.reached += segment.length
      const ready = readyCalls(ctx, segment, state, output)
      if (!ready.length) continue
      const batch = await ctx.loop.executeToolCalls(
        ready.map(({ callId, name, arguments: args }) => ({ callId, name, arguments: args })),
        { signal: controller.signal, onResult: () => progress.tick() },
      )
      for (const [i, call] of ready.entries()) {
        progress.clear()
        showResult(
          ctx,
          { line: call.line, callId: call.callId, name: call.name, result: batch.results[i], durationMs: timings.take(call.callId) },
          state,
          output,
        )
      }
      output.contexts(batch.contexts)
      // A hook's `continue: false` ends the session, as under Claude Code: no later line runs.
      if (batch.stop) {
        state.stop = batch.stop
        break
      }
    }
  } finally {
    progress.clear()
    progress.stop()
    process.off('SIGINT', onSigint)
    await lifecycle(ctx, { name: 'SessionEnd', reason: 'other' })
    await shutdown(ctx)
  }
  return finish(options, calls.length, state, controller.signal.aborted, kept)
}

/** The segment's calls with their references resolved; a bad reference or an unknown tool is an input problem. */
function readyCalls(ctx: Context, segment: CallLine[], state: RunState, output: RunOutput): CallLine[] {
  const ready: CallLine[] = []
  for (const call of segment) {
    let args = call.arguments
    try {
      args = resolveReferences(call.arguments, state.values)
    } catch (error) {
      state.bad++
      output.inputError(call.line, (error as Error).message)
      continue
    }
    const unknown = unknownTool(ctx, call.name)
    if (unknown) {
      state.bad++
      output.inputError(call.line, unknown)
      continue
    }
    ready.push({ ...call, arguments: args })
  }
  return ready
}

function showResult(ctx: Context, outcome: Outcome, state: RunState, output: RunOutput) {
  state.values.set(outcome.callId, outcome.result)
  output.out(output.json ? json(outcome) : outcomeLines(outcome, output.display))
  const lost = unrecordedReason(ctx, outcome.callId)
  if (lost) {
    state.unrecorded.push(outcome.callId)
    output.inputError(outcome.line, lost)
  }
}

/** The closing summary line (or the JSON stop record), and the exit code. */
function finish(options: RunOptions, total: number, state: RunState, interrupted: boolean, kept: string): number {
  const { stop, unrecorded, bad } = state
  if (!options.json) {
    const lost = unrecorded.length ? `, ${unrecorded.length} call(s) not run or not recorded (${unrecorded.join(', ')})` : ''
    const stopped = interrupted
      ? ', interrupted: calls not started were not run'
      : stop
        ? `, stopped by ${stop.by}: ${stop.reason}; ${total - state.reached} later call line(s) not run`
        : ''
    process.stderr.write(`dshkit: ${visible(`${total} call line(s), ${bad} input problem(s)${lost}${stopped}${kept}`)}\n`)
  }
  if (stop && options.json) process.stdout.write(`${JSON.stringify({ type: 'stop', by: stop.by, reason: stop.reason, notRun: total - state.reached })}\n`)
  if (interrupted) return 130
  if (stop) return 3
  return bad || unrecorded.length ? 1 : 0
}

type RunOutput = ReturnType<typeof runOutput>

/** Where a run's lines go: results and contexts on stdout, input problems on stderr (or all as JSON lines). */
function runOutput(options: RunOptions) {
  const display = options.display ?? options.file
  const out = (text: string) => process.stdout.write(text + '\n')
  return {
    display,
    json: options.json,
    out,
    inputError(line: number | undefined, message: string) {
      const where = line ? `${display}:${line}` : display
      if (options.json) out(JSON.stringify({ type: 'error', file: display, line, message }))
      else process.stderr.write(`dshkit: ${visible(`${where}: ${message}`)}\n`)
    },
    contexts(contexts: readonly ContextMessage[]) {
      for (const context of contexts) {
        if (options.json) out(JSON.stringify({ type: 'context', ...context }))
        else
          out(
            `  + context from ${visible(context.source)}:\n${context.content.map((b: any) => `    ${b.type === 'text' ? visible(b.text, { multiline: true }) : '[image]'}`).join('\n')}`,
          )
      }
    },
  }
}

/** Where the session is kept without --log: the config's own JSONL store, or nowhere (said, not left silent). */
function sessionKept(ctx: Context): string {
  const store = (ctx.get('session') as { store?: unknown } | undefined)?.store
  if (store instanceof JsonlSessionStore) return `; session log: ${store.path}`
  if (!store || store instanceof MemorySessionStore) return '; no session log kept (pass --log FILE to keep one)'
  return ''
}

/** Why the session log does not hold this call's outcome, or undefined when it does. */
function unrecordedReason(ctx: Context, callId: string): string | undefined {
  const session = ctx.get('session') as { recorded?(callId: string): 'none' | 'call' | 'result' } | undefined
  if (typeof session?.recorded !== 'function') return
  switch (session.recorded(callId)) {
    case 'none':
      return `call "${callId}" was not run: the session log could not record it first`
    case 'call':
      return `call "${callId}" ran, but the session log could not record its result (the log shows it as interrupted)`
  }
}

/** Consecutive calls without references run as one batch; a referencing call starts a new one. */
function* segments(calls: CallLine[]) {
  let current: CallLine[] = []
  for (const call of calls) {
    if (hasReference(call.arguments) && current.length) {
      yield current
      current = []
    }
    current.push(call)
  }
  if (current.length) yield current
}

/** Measures each call from its first pipeline event to its result. */
function trackDurations(ctx: Context) {
  const started = new Map<string, number>()
  const finished = new Map<string, number>()
  ctx.on('tools/pre-execute', (exec, next) => (started.set(exec.callId, performance.now()), next()), { prepend: true })
  ctx.on('tools/result', (exec) => void finished.set(exec.callId, performance.now()))
  return {
    take(callId: string) {
      const end = finished.get(callId) ?? performance.now()
      return Math.round(end - (started.get(callId) ?? end))
    },
  }
}

/** An approval prompt owns the terminal: no progress line is drawn over it. */
function pauseProgressWhileAsking(ctx: Context, progress: ReturnType<typeof startProgress>) {
  const approval = ctx.get('approval') as { respond?(handler: (request: any) => undefined): () => void } | undefined
  if (typeof approval?.respond !== 'function') return
  approval.respond((request) => {
    progress.clear()
    progress.asking.add(request.exec.callId)
    return undefined // let the configured responder answer
  })
  ctx.on('tools/execute', (exec, next) => (progress.asking.delete(exec.callId), next()), { prepend: true })
  ctx.on('tools/result', (exec) => void progress.asking.delete(exec.callId))
}

/** A progress line on stderr once a batch has run for more than a second. */
function startProgress(total: number) {
  const begin = performance.now()
  const asking = new Set<string>()
  let done = 0
  let shown = false
  const tty = process.stderr.isTTY
  const draw = () => {
    if (asking.size) return
    const seconds = ((performance.now() - begin) / 1000).toFixed(1)
    const text = `dshkit: ${done}/${total} calls done, ${seconds} s`
    if (tty) process.stderr.write(`\r${text}\x1b[K`)
    else process.stderr.write(`${text}\n`)
    shown = true
  }
  const timer = setInterval(draw, 1000)
  timer.unref()
  return {
    asking,
    tick: () => void done++,
    clear: () => {
      if (shown && tty) process.stderr.write('\r\x1b[K')
      shown = false
    },
    stop: () => clearInterval(timer),
  }
}

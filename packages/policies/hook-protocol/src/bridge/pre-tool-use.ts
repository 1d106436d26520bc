import { canonicalJson } from '@dshkit/common'
import { unmapToolInput } from '../mapping.js'
import { mergeVerdicts, type MergedVerdict } from '../merge.js'
import type { HookVerdict } from '../parse.js'
import type { OwnRewrite } from './call-state.js'
import type { BridgeEngine } from './engine.js'
import type { HookCall, HookDetail, HookJson, PreAnswer } from './types.js'

/**
 * PreToolUse: matching hooks run in parallel; deny > ask > allow, and allow is just `next()`, so no hook
 * can skip another policy or a guard; an `updatedInput` becomes `updatedArguments`, which the registry
 * validates and judges again from the start.
 */
export async function preToolUse<D extends { kind: string }>(engine: BridgeEngine, call: HookCall, next: () => Promise<D>): Promise<D | PreAnswer> {
  const stored = engine.calls.takeRewrite(call.token)
  // The pass our own rewrite started: the rewriters sit out, every other hook judges the new input (a guard is never laundered past).
  const own = stored && stored.arguments === canonicalJson(call.arguments) ? stored : undefined
  if (call.dryRun && engine.options.dryRun !== 'run') return reportOnly(engine, call, next, own)
  const verdicts = await engine.runEvent('PreToolUse', call, {}, own?.rewriters)
  if (!verdicts.length) {
    const inner = await next()
    return own?.ask && inner.kind !== 'deny' ? own.ask : inner
  }
  engine.record(call.token, 'PreToolUse', verdicts)
  const detail = engine.detailOf('PreToolUse', verdicts)
  const merged = mergeVerdicts(verdicts, 'PreToolUse', engine.options.onError)
  // Claude Code ends the session: this call does not run, and neither does any later one.
  const stop = engine.stopOf(verdicts)
  if (stop) return { kind: 'deny', reason: stop.reason, source: stop.by, detail, stop }
  if (merged.kind === 'deny') return { kind: 'deny', reason: merged.reason, source: engine.sourceOf(merged.command), detail }
  const ask = merged.kind === 'ask' ? { kind: 'ask' as const, reason: merged.reason, source: engine.sourceOf(merged.command) } : own?.ask
  const rewritten = merged.updatedInput && applyRewrite(engine, call, merged, verdicts, { own, ask, detail })
  if (rewritten) return rewritten
  const inner = await next()
  // An inner denial stands; otherwise the hook's ask goes to approval (after the guards). The hooks that ran
  // ride along as trace detail; returning the inner decision with only that added is still a pass.
  return ask && inner.kind !== 'deny' ? { ...ask, detail } : { ...inner, detail }
}

interface PassNotes {
  own: OwnRewrite | undefined
  ask: OwnRewrite['ask']
  detail: HookDetail
}

/** The answer a rewrite gives (its new arguments, remembered for the pass they start, or a denial), or undefined when nothing changed. */
function applyRewrite(engine: BridgeEngine, call: HookCall, merged: Allowing, verdicts: HookVerdict[], { own, ask, detail }: PassNotes): PreAnswer | undefined {
  const rewritten = rewriteOf(engine, call, merged)
  if (rewritten.kind === 'deny') return { ...rewritten, detail }
  if (rewritten.kind !== 'allow') return undefined
  const rewriters = new Set(own?.rewriters)
  for (const v of verdicts) if (v.updatedInput !== undefined && v.decision !== 'error') rewriters.add(engine.handlerKeyOf(v))
  engine.calls.of(call.token).rewrite = { arguments: canonicalJson(rewritten.updatedArguments), ask, rewriters }
  return { ...rewritten, detail }
}

/** A dry run in `report` mode: no hook runs; the inner listeners decide, and the trace says which hooks would have run. */
async function reportOnly<D extends { kind: string }>(
  engine: BridgeEngine,
  call: HookCall,
  next: () => Promise<D>,
  own: OwnRewrite | undefined,
): Promise<D | PreAnswer> {
  const { selected } = engine.select('PreToolUse', call, own?.rewriters)
  const inner = await next()
  const judging = selected.filter((hook) => !hook.async)
  if (!judging.length) return own?.ask && inner.kind !== 'deny' ? own.ask : inner
  const detail = {
    hooks: judging.map((hook) => engine.traced('PreToolUse', hook)),
    notJudged: `${judging.length} PreToolUse hook(s) not run in a dry run: they are external commands that may have side effects (set dryRun: 'run' to run them)`,
  }
  return { ...inner, detail }
}

type Allowing = Extract<MergedVerdict, { kind: 'allow' | 'ask' }>

/** A hook's updatedInput as our arguments: the registry validates them and judges the call again. */
function rewriteOf(engine: BridgeEngine, call: HookCall, merged: Allowing): Exclude<PreAnswer, { kind: 'ask' }> | { kind: 'same' } {
  const { input, command } = merged.updatedInput!
  let args: HookJson
  try {
    args = toJson(unmapToolInput(input, call.arguments, engine.options.toolNames.get(call.name), call.name))
  } catch (error) {
    return {
      kind: 'deny',
      reason: `PreToolUse hook \`${command}\` returned an updatedInput that cannot be applied: ${(error as Error).message}`,
      source: engine.sourceOf(command),
    }
  }
  // Unchanged arguments are no rewrite: the inner listeners must still judge the call.
  if (canonicalJson(args) === canonicalJson(call.arguments)) return { kind: 'same' }
  engine.options.logger.info('PreToolUse hook `%s` rewrote the arguments of %s; the call is judged again with them', command, call.name)
  return { kind: 'allow', updatedArguments: args, source: engine.sourceOf(command) }
}

function toJson(value: unknown): HookJson {
  return JSON.parse(JSON.stringify(value) ?? 'null')
}

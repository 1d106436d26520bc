import type { ShellChangeRequest } from '@dshkit/shell'
import type { ToolDefinition, ToolExecution } from '@dshkit/tools'
import { ruleMessage, type CompiledRule, type PathLookup } from './rules.js'
import type { TargetLookup } from './shell-line.js'
import type { Verdict } from './verdict.js'

// Judging a change is a dry run of a call that never happens: nothing runs and no one is asked.
const never = new AbortController().signal
const callOf = (name: string, args: { [key: string]: string }): ToolExecution => ({
  token: Symbol('shell-change'),
  callId: 'shell-change',
  name,
  arguments: args,
  input: args,
  signal: never,
  dryRun: true,
})

// A path no tool sees: asks a tool's `fsAccess` whether its `path` argument is a path it writes.
const PROBE = '/dshkit-probe/write'

/** Tools whose `path` argument is a file they write (fs_write, fs_edit): a change is judged as each of them writing it. */
function writeTools(definitions: ReadonlyMap<string, ToolDefinition>): string[] {
  const names: string[] = []
  for (const [name, def] of definitions) {
    try {
      if (def.fsAccess?.({ path: PROBE })?.some((access) => access.path === PROBE && access.access === 'write')) names.push(name)
    } catch {
      // A footprint that needs other arguments says nothing here.
    }
  }
  return names
}

interface ToolRoles {
  /** The definitions these roles were read from, to notice a tool registered or replaced since. */
  seen: ToolDefinition[]
  /** Tools that write their `path` argument. */
  writers: string[]
  /** Every other tool: a `writes` rule's line runs as one of these. */
  others: string[]
}

// One shell call can land thousands of changes: the tools' roles are read once per registry state, not per change.
const rolesOf = new WeakMap<ReadonlyMap<string, ToolDefinition>, ToolRoles>()

function toolRoles(definitions: ReadonlyMap<string, ToolDefinition>): ToolRoles {
  const cached = rolesOf.get(definitions)
  const now = [...definitions.values()]
  if (cached && cached.seen.length === now.length && cached.seen.every((def, i) => def === now[i])) return cached
  const writers = writeTools(definitions)
  const roles = { seen: now, writers, others: [...definitions.keys()].filter((name) => !writers.includes(name)) }
  rolesOf.set(definitions, roles)
  return roles
}

/** Whether a rule names a path: a `writes` glob, or a `when` key that is a path argument of some write tool. */
export function namesPath(rule: CompiledRule): boolean {
  return rule.commands?.writes !== undefined || Object.keys(rule.rule.when ?? {}).includes('path')
}

export interface ChangeJudge {
  rules: readonly CompiledRule[]
  /** Where an fs tool's path argument lands (its spellings, symlinks followed). */
  pathsOf: (exec: ToolExecution) => PathLookup
  /** Where a written path lands, relative to the workspace, as redirect targets are judged. */
  targets: TargetLookup
  definitions: ReadonlyMap<string, ToolDefinition>
}

/**
 * What the deny and ask rules that name a path say about one change a shell call is about to land: judged as each
 * write tool writing that path (`{ tool: fs_write, when: { path } }`), and as the call writing it (`writes`). Allow
 * rules and `default` do not judge changes: the call as a whole was already allowed, these rules refuse what they name.
 */
export function changeVerdict(judge: ChangeJudge, change: ShellChangeRequest): Verdict | undefined {
  const roles = toolRoles(judge.definitions)
  let ask: CompiledRule | undefined
  for (const rule of judge.rules) {
    if (rule.rule.decision === 'allow' || (ask && rule.rule.decision === 'ask') || !namesPath(rule) || !hits(judge, rule, change, roles)) continue
    if (rule.rule.decision === 'deny') return { decision: 'deny', rule, message: ruleMessage(rule) }
    ask = rule
  }
  if (ask)
    return {
      decision: 'ask',
      rule: ask,
      message: `needs approval (${ruleMessage(ask)}), which a change a shell command already made cannot ask for: make it with fs_write, which asks`,
    }
}

function hits(judge: ChangeJudge, rule: CompiledRule, change: ShellChangeRequest, { writers, others }: ToolRoles): boolean {
  const writes = rule.commands?.writes
  if (writes) {
    // The line's own arguments, so a rule's `when` on `cwd` or `command` still applies; its command patterns do not
    // (which command of the line made the change is not known), so a `writes` deny covers every command: stricter.
    const forms = judge.targets(change.path, undefined)
    const call = (name: string) => callOf(name, { command: change.command, cwd: change.cwd })
    if (forms?.some(writes) && others.some((name) => rule.matches(call(name), () => undefined))) return true
  }
  return writers.some((name) => {
    const exec = callOf(name, { path: change.path })
    return rule.matches(exec, judge.pathsOf(exec))
  })
}

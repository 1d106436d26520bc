import { promises as fsp } from 'node:fs'
import type { ToolExecution } from '@dshkit/tools'
import { PermissionRules, type PathLookup } from '@dshkit/rules'
import { loadCommandParser } from '@dshkit/bash'
import { cleanSummary, ruleSummary, type Grant, type GrantInput, type GrantsApi } from '@dshkit/approval'
import { checkGrantRule } from '@dshkit/rules'
import { GrantsFileError } from './errors.js'
import { newGrantId, readGrantsFile, writeGrantsFile, type GrantsFile } from './grants-file.js'

/** Where rule grants look up paths and shell redirections, as permission-policy does. */
export interface RuleContext {
  pathsOf(exec: ToolExecution): PathLookup
  targets(target: string, cwd: string | undefined): ReturnType<PathLookup>
}

interface Loaded {
  stamp: string
  grants: Grant[]
  rules: { grant: Grant; rules: PermissionRules }[]
}

const hex64 = /^[0-9a-f]{64}$/

/**
 * The grants, kept in one JSON file (or in memory). Every check re-reads the file when it changed
 * (size, mtime, inode), so a `dshkit grants revoke` from another process counts at once.
 * Writes go through one queue per store and replace the file atomically.
 */
export class GrantStore implements GrantsApi {
  private memory: GrantsFile = { version: 1, grants: [] }
  private loaded: Loaded | undefined
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly file: string | undefined,
    private readonly where: RuleContext,
  ) {}

  async list(): Promise<Grant[]> {
    return (await this.load()).grants.map((grant) => structuredClone(grant))
  }

  async add(input: GrantInput): Promise<Grant> {
    const made = makeGrant(input)
    let grant = made
    await this.change((content) => {
      // The same exact grant twice (two tabs, a queued ask) is kept once.
      const same = made.kind === 'exact' && content.grants.find((g) => g.kind === 'exact' && g.tool === made.tool && g.argumentsHash === made.argumentsHash)
      if (same) {
        grant = same
        return undefined
      }
      return { ...content, grants: [...content.grants, made] }
    })
    return structuredClone(grant)
  }

  async revoke(id: string): Promise<boolean> {
    let found = false
    await this.change((content) => {
      const grants = content.grants.filter((grant) => grant.id !== id)
      found = grants.length < content.grants.length
      return found ? { ...content, grants } : undefined
    })
    return found
  }

  /** The first grant that allows this call, if any. Throws GrantsFileError when the file is bad. */
  async match(exec: ToolExecution, hash: string): Promise<Grant | undefined> {
    const { grants, rules } = await this.load()
    const exact = grants.find((grant) => grant.kind === 'exact' && grant.tool === exec.name && grant.argumentsHash === hash)
    if (exact) return exact
    for (const { grant, rules: compiled } of rules) {
      if (compiled.verdict(exec).decision === 'allow') return grant
    }
  }

  private change(edit: (content: GrantsFile) => GrantsFile | undefined): Promise<void> {
    const run = this.queue.then(async () => {
      // Read fresh (never the cache): another process may have written since.
      const current = this.file ? await readGrantsFile(this.file) : this.memory
      const next = edit(current)
      if (!next) return
      if (this.file) await writeGrantsFile(this.file, next)
      else this.memory = next
      this.loaded = undefined
    })
    this.queue = run.catch(() => {})
    return run
  }

  private async load(): Promise<Loaded> {
    const stamp = this.file ? await stampOf(this.file) : 'memory'
    if (this.loaded && this.loaded.stamp === stamp && stamp !== 'memory') return this.loaded
    const content = this.file ? await readGrantsFile(this.file) : this.memory
    const rules = content.grants
      .filter((grant) => grant.kind === 'rule')
      .map((grant) => ({
        grant,
        rules: new PermissionRules([{ ...(grant as Extract<Grant, { kind: 'rule' }>).rule, decision: 'allow' }], 'ask', this.where.pathsOf, this.where.targets),
      }))
    // Command rules need the bash grammar; until it loads such a rule answers nothing (the person is asked).
    if (rules.some(({ rules }) => rules.judgesCommands)) await loadCommandParser()
    this.loaded = { stamp, grants: content.grants, rules }
    return this.loaded
  }
}

async function stampOf(file: string): Promise<string> {
  try {
    const stat = await fsp.stat(file, { bigint: true })
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw new GrantsFileError(file, `cannot be read (${(error as Error).message})`)
  }
}

function makeGrant(input: GrantInput): Grant {
  if (!input || typeof input !== 'object') throw new TypeError('grants.add() needs { kind: "exact", tool, argumentsHash } or { kind: "rule", rule }')
  const base = { id: newGrantId(), created: new Date().toISOString(), ...(typeof input.by === 'string' && { by: cleanSummary(input.by) }) }
  if (input.kind === 'exact') {
    if (typeof input.tool !== 'string' || !input.tool) throw new TypeError('an exact grant needs the tool name')
    if (typeof input.argumentsHash !== 'string' || !hex64.test(input.argumentsHash))
      throw new TypeError('an exact grant needs argumentsHash: the 64-hex sha256 of the canonical arguments (ApprovalAsk.argumentsHash)')
    const summary =
      typeof input.summary === 'string' ? cleanSummary(input.summary) : `${cleanSummary(input.tool)} with arguments ${input.argumentsHash.slice(0, 12)}…`
    return { ...base, kind: 'exact', tool: input.tool, argumentsHash: input.argumentsHash, summary }
  }
  if (input.kind === 'rule') {
    let rule
    try {
      rule = checkGrantRule(input.rule)
    } catch (error) {
      throw new TypeError(`grant rule: ${(error as Error).message}`)
    }
    return { ...base, kind: 'rule', tool: rule.tool, rule, summary: typeof input.summary === 'string' ? cleanSummary(input.summary) : ruleSummary(rule) }
  }
  throw new TypeError('grants.add() needs kind "exact" or "rule"')
}

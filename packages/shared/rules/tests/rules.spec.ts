import fc from 'fast-check'
import picomatch from 'picomatch'
import type { ToolExecution } from '@dshkit/tools'
import { describe, expect, test } from 'vitest'
import { braceAlternatives, checkRule, declares, describeRule, PermissionRules, Rule } from '../src/index.js'
import { propertySeed } from '@dshkit/testing'

// The library on its own, no plugin: permission-policy's tests judge the same code through the pipeline.
const call = (name: string, args: { [key: string]: string } = {}): ToolExecution => ({
  token: Symbol('call'),
  callId: 'c',
  name,
  arguments: args,
  input: args,
  signal: new AbortController().signal,
})

describe('the schema', () => {
  test('names the field and what to write for a bad rule', () => {
    expect(Rule.safeParse({ tool: 'fs_write', decision: 'allow', writes: 'x/**' }).error?.issues[0].message).toBe(
      'an allow rule with `writes` must also name its commands with `command` (e.g. command: "echo *")',
    )
    expect(Rule.safeParse({ tool: '', decision: 'deny' }).error?.issues[0].message).toBe('tool must be a non-empty glob')
    expect(Rule.safeParse({ tool: 'x', decision: 'maybe' }).error?.issues[0].message).toBe('decision must be "allow", "deny" or "ask"')
    expect(Rule.safeParse({ tool: 'x', decision: 'deny', when: { 'a..b': '*' } }).success).toBe(false)
  })
})

describe('words', () => {
  test('describeRule names a rule the way denials do', () => {
    expect(describeRule({ tool: 'fs_write', decision: 'deny', when: { path: '**/*.lock' } }, 1)).toBe('rule #2 (deny fs_write when path="**/*.lock")')
    expect(describeRule({ tool: 'shell', decision: 'ask', command: ['rm *', 'git push'] }, 0)).toBe('rule #1 (ask shell command ["rm *", "git push"])')
  })

  test('brace lists expand (nested too, in any order), bounded', () => {
    expect(new Set(braceAlternatives('{fs_read,fs_{list,write}}'))).toEqual(new Set(['fs_read', 'fs_list', 'fs_write']))
    expect(braceAlternatives('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}', 256)).toBeUndefined()
  })

  test('declares walks a schema, and says what it takes where the path left it', () => {
    const schema = { type: 'object', properties: { options: { type: 'object', properties: { mode: { type: 'string' } } } } }
    expect(declares(schema, ['options', 'mode'])).toEqual({ kind: 'yes' })
    expect(declares(schema, ['options', 'mdoe'])).toEqual({ kind: 'no', known: ['mode'], left: 1 })
    expect(declares({ $ref: '#/x' }, ['a'])).toEqual({ kind: 'open' })
  })

  test('checkRule finds a typo in a tool name and a `when` key', () => {
    const tools = [{ name: 'fs_write', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }]
    const typo = checkRule({ tool: 'fs_wrte', decision: 'deny' }, 0, tools, false)
    expect(typo).toMatchObject({ kind: 'problem', message: 'rule #1 (deny fs_wrte): no tool "fs_wrte" is registered; did you mean "fs_write"?' })
    const key = checkRule({ tool: 'fs_write', decision: 'deny', when: { pth: '*' } }, 0, tools, false)
    expect(key).toMatchObject({ kind: 'problem', message: expect.stringContaining('did you mean "path"?') })
    expect(checkRule({ tool: 'mcp__later__x', decision: 'deny' }, 0, tools, false)).toEqual({ kind: 'waiting' })
  })
})

describe('the matcher', () => {
  const tools = ['fs_write', 'fs_read', 'shell'] as const
  const paths = ['src/a.ts', 'src/b.lock', 'pkg/c.lock', 'README.md'] as const
  const rule = fc.record(
    {
      tool: fc.constantFrom('*', 'fs_*', 'fs_write', 'shell', 's*', '{fs_read,shell}'),
      when: fc.option(fc.constantFrom({ path: '**' }, { path: '**/*.lock' }, { path: 'src/**' }, { path: '*.md' }, { mode: '*' }), { nil: undefined }),
      decision: fc.constantFrom('allow', 'deny', 'ask'),
    },
    { requiredKeys: ['tool', 'decision'] },
  ) as fc.Arbitrary<Rule>
  // The oracle matches with picomatch directly; the values here have one spelling each.
  const matches = (r: Rule, name: string, path: string) =>
    picomatch(r.tool, { dot: true })(name) && Object.entries(r.when ?? {}).every(([key, glob]) => key === 'path' && picomatch(glob, { dot: true })(path))
  const seed = propertySeed()

  test('deny > ask > allow > default, whatever the order, naming the first rule of the winning kind', () => {
    console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), fc.constantFrom(...tools), fc.constantFrom(...paths), (rules, name, path) => {
        const verdict = new PermissionRules(rules, 'ask').verdict(call(name, { path }))
        const hit = (decision: Rule['decision']) => rules.findIndex((r) => r.decision === decision && matches(r, name, path))
        const first = (['deny', 'ask', 'allow'] as const).find((decision) => hit(decision) >= 0)
        expect(verdict.decision).toBe(first ?? 'ask')
        if (first === 'allow') expect(verdict.message).toBe('allowed by a rule')
        else if (first) expect(verdict.rule?.index).toBe(hit(first))
        else expect(verdict.message).toBe(`no rule matches \`${name}\` and the default is ask`)
      }),
      { numRuns: 300, seed },
    )
  })

  test('a broken rule fails its scope closed until it is lifted', () => {
    const rules = new PermissionRules([{ tool: 'mcp__a__*', decision: 'deny' }], 'allow')
    rules.setBroken(0, { scope: (tool) => tool.startsWith('mcp__a__'), message: 'rule #1 names nothing' })
    expect(rules.verdict(call('mcp__a__x'))).toMatchObject({ decision: 'deny', message: expect.stringContaining('until it is fixed') })
    expect(rules.verdict(call('fs_read')).decision).toBe('allow')
    rules.setBroken(0, undefined)
    expect(rules.verdict(call('mcp__a__x'))).toEqual(expect.objectContaining({ decision: 'deny', message: 'rule #1 (deny mcp__a__*)' }))
  })
})

import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context } from 'cordis'
import LocalFs from '@dshkit/fs-local'
import ToolFs from '@dshkit/tool-fs'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import PermissionPolicy, { type ConfigInput } from '../src/index.js'

afterEach(cleanup)

type RuleInput = NonNullable<NonNullable<ConfigInput>['rules']>[number]

/** The shell tool's arguments as @dshkit/tool-shell declares them, and a tool with nested and list arguments. */
const otherTools = {
  name: 'other-tools',
  inject: ['tools'],
  apply: (ctx: Context) => {
    ctx.tools.register(
      defineTool({
        name: 'shell',
        description: 'runs a line',
        parameters: z.object({ command: z.string(), cwd: z.string().optional(), timeoutMs: z.number().optional(), description: z.string().optional() }),
        execute: () => 'ran',
      }),
    )
    ctx.tools.register(
      defineTool({
        name: 'deploy',
        description: 'deploys',
        parameters: z.object({ options: z.object({ mode: z.enum(['dry', 'real']), target: z.string() }), argv: z.array(z.string()) }),
        execute: () => 'deployed',
      }),
    )
    ctx.tools.register(defineTool({ name: 'anything', description: 'takes any arguments', parameters: z.any(), execute: () => 'ok' }))
  },
}

/** The real fs tools (fs-local in a temp dir), `shell`, `deploy` and `anything`, then the policy. */
async function start(rules: RuleInput[], extra: Partial<ConfigInput> = {}) {
  const root = await tempDir('dshkit-rule-check-')
  await writeFile(join(root, 'protected.txt'), 'original')
  const booted = await boot({ plugins: [[LocalFs, { cwd: root }], ToolFs, otherTools] })
  const started = booted.plug(PermissionPolicy, { rules, ...extra })
  return { ...booted, root, started }
}

/** Rules that can never match, each one spelling of its class, with what the refusal must say. */
const neverMatch: [string, RuleInput, RegExp][] = [
  [
    'wrong case',
    { tool: 'Shell', decision: 'deny' },
    /rule #2 \(deny Shell\): no tool "Shell" is registered; did you mean "shell"\? \(tool names are case-sensitive\)/,
  ],
  ['all capitals', { tool: 'FS_WRITE', decision: 'deny' }, /did you mean "fs_write"\? \(tool names are case-sensitive\)/],
  ['a letter dropped', { tool: 'fs_wrte', decision: 'deny' }, /no tool "fs_wrte" is registered; did you mean "fs_write"\?$/],
  ['two letters swapped', { tool: 'fs_wirte', decision: 'ask' }, /did you mean "fs_write"\?/],
  ['a letter added', { tool: 'shelll', decision: 'allow' }, /did you mean "shell"\?/],
  ['dash for underscore', { tool: 'fs-read', decision: 'deny' }, /did you mean "fs_read"\?/],
  ['a trailing space', { tool: 'fs_write ', decision: 'deny' }, /no tool "fs_write " is registered; did you mean "fs_write"\?/],
  ['no close name', { tool: 'git', decision: 'deny' }, /no tool "git" is registered; registered: .*fs_write.*shell/],
  // An allow for "everything but the shell" with the shell misspelt would allow the shell too.
  ['a typo inside a negation', { tool: '!(shel)', decision: 'allow' }, /no tool "shel" is registered; did you mean "shell"\?/],
  ['a typo after a leading !', { tool: '!fs_wrte', decision: 'allow' }, /no tool "fs_wrte" is registered; did you mean "fs_write"\?/],
  ['a typo in an extglob list', { tool: '@(fs_read|fs_wrte)', decision: 'deny' }, /no tool "fs_wrte" is registered; did you mean "fs_write"\?/],
  ['one brace alternative misspelt', { tool: '{fs_read,fs_lst}', decision: 'deny' }, /no tool "fs_lst" is registered; did you mean "fs_list"\?/],
  [
    'a pattern in the wrong case',
    { tool: 'FS_*', decision: 'deny' },
    /the tool pattern "FS_\*" matches no registered tool; tool names are case-sensitive \(it would match fs_read, fs_write/,
  ],
  ['a pattern matching nothing', { tool: 'fs_wr*x', decision: 'deny' }, /the tool pattern "fs_wr\*x" matches no registered tool; registered:/],
  [
    'an argument misspelt',
    { tool: 'fs_write', when: { pth: '**/protected.txt' }, decision: 'deny' },
    /`when` names argument "pth", which fs_write does not declare; did you mean "path"\?/,
  ],
  [
    'an argument misspelt on shell',
    { tool: 'shell', when: { comand: 'rm *' }, decision: 'deny' },
    /"comand", which shell does not declare; did you mean "command"\?/,
  ],
  [
    'an argument in the wrong case',
    { tool: 'fs_write', when: { Path: '**' }, decision: 'ask' },
    /"Path", which fs_write does not declare; did you mean "path"\?/,
  ],
  [
    'an argument only another tool declares',
    { tool: 'fs_write', when: { command: 'rm *' }, decision: 'deny' },
    /"command", which fs_write does not declare \(shell does; the rule's tool does not match it\)/,
  ],
  [
    'an argument none of a pattern’s tools declares',
    { tool: 'fs_*', when: { pth: '**' }, decision: 'deny' },
    /which none of fs_read, .*fs_list declares; did you mean "path"\?/,
  ],
  ['a nested argument misspelt', { tool: 'deploy', when: { 'options.mdoe': 'real' }, decision: 'deny' }, /did you mean "options\.mode"\?/],
  [
    'a parent argument misspelt',
    { tool: 'deploy', when: { 'option.mode': 'real' }, decision: 'deny' },
    /"option\.mode", which deploy does not declare; did you mean "options"\?/,
  ],
  ['a list indexed by a name', { tool: 'deploy', when: { 'argv.first': '--force' }, decision: 'deny' }, /"argv\.first", which deploy does not declare/],
  ['below a string', { tool: 'fs_write', when: { 'path.length': '1' }, decision: 'deny' }, /"path\.length", which fs_write does not declare/],
  [
    'a command rule on a tool without a command',
    { tool: 'fs_write', command: 'rm *', decision: 'deny' },
    /`command`\/`writes` judge the argument "command", which fs_write does not declare/,
  ],
  ['a writes rule on a tool without a command', { tool: 'fs_*', writes: '**/.env', decision: 'deny' }, /judge the argument "command", which none of/],
]

describe('a rule that can never match is refused at start, naming it and what it most likely meant', () => {
  test.each(neverMatch)('%s', async (_, rule, message) => {
    const { started } = await start([{ tool: 'fs_read', decision: 'allow' }, rule])
    await expect(started).rejects.toThrow(message)
    await expect(started).rejects.toThrow(/^rule #2 /)
  })

  test('every broken rule is named in one line', async () => {
    const { started } = await start([
      { tool: 'fs_wrte', decision: 'deny' },
      { tool: 'shell', decision: 'allow' },
      { tool: 'shell', when: { comand: 'x' }, decision: 'deny' },
    ])
    const error = await started.catch((e: Error) => e)
    expect((error as Error).message).toMatch(/^rule #1 \(deny fs_wrte\): .*; rule #3 \(deny shell when comand="x"\): /)
    expect((error as Error).message).not.toContain('\n')
  })

  test('control characters in a rule are shown escaped', async () => {
    const { started } = await start([{ tool: 'fs_write\u001b[2J\u202e', decision: 'deny' }])
    const error = (await started.catch((e: Error) => e)) as Error
    expect(error.message).toContain('\\u001b[2J\\u202e')
    expect(error.message).not.toMatch(/[\u001b\u202e]/)
  })
})

/** Rules that can match: each starts, and a denied call stays denied. */
const canMatch: [string, RuleInput][] = [
  ['an exact name', { tool: 'fs_write', decision: 'deny' }],
  ['a pattern', { tool: 'fs_*', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['brace alternatives', { tool: '{fs_write,fs_edit}', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['everything', { tool: '*', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['a negation', { tool: '!(shell)', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['an extglob list', { tool: '@(fs_write|fs_edit)', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['a pattern inside an extglob list', { tool: '@(fs_w*|shell)', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['an argument some tool of the pattern declares', { tool: '{fs_write,shell}', when: { path: '**/protected.txt' }, decision: 'deny' }],
  ['a nested argument', { tool: 'deploy', when: { 'options.mode': 'real' }, decision: 'deny' }],
  ['a list element', { tool: 'deploy', when: { 'argv.0': '--force' }, decision: 'deny' }],
  ['a tool whose schema says nothing', { tool: 'anything', when: { whatever: 'x' }, decision: 'deny' }],
  ['a command rule', { tool: 'shell', command: 'rm *', decision: 'deny' }],
  ['an MCP pattern before its server connects', { tool: 'mcp__github__*', decision: 'deny' }],
  ['an MCP name before its server connects', { tool: 'mcp__github__delete_repo', when: { repo: '*' }, decision: 'deny' }],
]

test.each(canMatch)('a rule that can match starts: %s', async (_, rule) => {
  const { started, call, root } = await start([rule])
  await started
  const result = await call('fs_write', { path: join(root, 'protected.txt'), content: 'overwritten' })
  if (rule.when?.path) expect(result).toMatchObject({ error: { code: 'DENIED', source: 'permission-policy' } })
})

test('the rules are checked once the plugins started beside the policy have registered their tools', async () => {
  const root = await tempDir('dshkit-rule-check-')
  const { ctx } = await boot()
  // The policy comes first, as in a bundle or a cordis.yml: the fs tools register after its apply began, and still count.
  const fibers = [
    ctx.plugin(PermissionPolicy, { rules: [{ tool: 'fs_write', when: { path: '**' }, decision: 'deny' }] }),
    ctx.plugin(LocalFs, { cwd: root }),
    ctx.plugin(ToolFs),
  ]
  for (const fiber of fibers) await fiber
  expect(fibers[0].state).toBe(2 /* ACTIVE */)
  expect(await ctx.tools.execute({ callId: 'c', name: 'fs_write', arguments: { path: 'a', content: 'b' } })).toMatchObject({ error: { code: 'DENIED' } })
})

test('a thousand broken rules are still one bounded line', async () => {
  const rules = Array.from({ length: 1000 }, (_, i) => ({ tool: `fs_wrte${'x'.repeat(i % 7)}`, decision: 'deny' as const }))
  const { started } = await start(rules)
  const error = (await started.catch((e: Error) => e)) as Error
  expect(error.message).toMatch(/^rule #1 \(deny fs_wrte\): .*; and 995 more rules that can never match$/)
  expect(error.message.length).toBeLessThan(2000)
})

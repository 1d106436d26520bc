import { Context, type ValidationError } from 'cordis'
import Tools from '@dshkit/tools'
import { describe, expect, test } from 'vitest'
import PermissionPolicy, { apply } from '../src/index.js'
import { setup, type Approve } from './helpers.js'

const allowAll = async () => ({ kind: 'allow' })
const denyAll = async () => ({ kind: 'deny', reason: 'the user said no' })

describe('deny rules', () => {
  test('a matching deny rule stops the call and the denial names the rule', async () => {
    const { run, ran } = await setup({
      rules: [
        { tool: 'shell', decision: 'allow' },
        { tool: 'fs_write', when: { path: '**/*.lock' }, decision: 'deny', reason: 'lock files are generated' },
      ],
    })
    const result = await run('fs_write', { path: 'pkg/pnpm-lock.lock', content: 'x' })
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'permission-policy' } })
    expect(result.isError && result.error.message).toBe('rule #2 (deny fs_write when path="**/*.lock"): lock files are generated')
    expect(result.content).toEqual([{ type: 'text', text: 'Error: rule #2 (deny fs_write when path="**/*.lock"): lock files are generated' }])
    expect(ran).toEqual([])
    expect(await run('fs_write', { path: 'src/a.ts' })).toMatchObject({ isError: false })
    expect(ran).toEqual(['fs_write'])
  })

  test('deny wins over an allow rule written before it and over an ask rule, and nobody is asked', async () => {
    const { run, asked, ran } = await setup(
      {
        rules: [
          { tool: '*', decision: 'allow' },
          { tool: 'fs_*', decision: 'ask' },
          { tool: 'fs_write', decision: 'deny' },
        ],
      },
      allowAll,
    )
    expect(await run('fs_write')).toMatchObject({ error: { code: 'DENIED', message: 'rule #3 (deny fs_write)' } })
    expect(asked).toEqual([])
    expect(ran).toEqual([])
  })

  test('a deny is a guard: an outer listener that answers allow cannot overrule it', async () => {
    const { ctx, run, ran } = await setup({ rules: [{ tool: 'shell', decision: 'deny', reason: 'no shell' }] })
    await ctx.plugin({ name: 'yes-man', inject: ['tools'], apply: (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'allow' }), { prepend: true }) })
    expect(await run('shell', { cmd: 'ls' })).toMatchObject({
      error: { code: 'DENIED', message: 'rule #1 (deny shell): no shell' },
      meta: { decidedBy: 'guard' },
    })
    expect(ran).toEqual([])
  })

  test('./x and a/../x spellings of a path cannot dodge a deny rule', async () => {
    const { run, ran } = await setup({ rules: [{ tool: 'fs_write', when: { path: 'secrets/**' }, decision: 'deny' }] })
    for (const path of ['secrets/key', './secrets/key', 'src/../secrets/key', 'secrets//key']) {
      expect(await run('fs_write', { path }), path).toMatchObject({ error: { code: 'DENIED' } })
    }
    expect(ran).toEqual([])
  })
})

describe('argument matching', () => {
  test('dotted paths reach nested arguments; non-strings match as JSON text; a missing argument does not match', async () => {
    const { run } = await setup({
      rules: [
        { tool: 'shell', when: { 'options.mode': 'danger*' }, decision: 'deny' },
        { tool: 'shell', when: { 'options.retries': '[5-9]' }, decision: 'deny' },
        { tool: 'shell', when: { 'argv.0': 'rm' }, decision: 'deny' },
        { tool: 'fs_write', when: { flags: '*"force"*' }, decision: 'deny' },
      ],
    })
    expect(await run('shell', { options: { mode: 'dangerous' } })).toMatchObject({ error: { message: 'rule #1 (deny shell when options.mode="danger*")' } })
    expect(await run('shell', { options: { retries: 7 } })).toMatchObject({ error: { message: 'rule #2 (deny shell when options.retries="[5-9]")' } })
    expect(await run('shell', { argv: ['rm', '-rf', '/'] })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await run('fs_write', { flags: ['force', 'quiet'] })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await run('shell', { options: { retries: 2, mode: 'safe' }, argv: ['ls'] })).toMatchObject({ isError: false })
    expect(await run('shell', {})).toMatchObject({ isError: false })
    expect(await run('shell', { options: 'danger' })).toMatchObject({ isError: false })
  })

  test('every `when` entry must match', async () => {
    const { run } = await setup({ rules: [{ tool: 'fs_write', when: { path: '*.md', content: '*TODO*' }, decision: 'deny' }] })
    expect(await run('fs_write', { path: 'a.md', content: 'a TODO b' })).toMatchObject({
      error: { message: 'rule #1 (deny fs_write when path="*.md" and content="*TODO*")' },
    })
    expect(await run('fs_write', { path: 'a.md', content: 'done' })).toMatchObject({ isError: false })
    expect(await run('fs_write', { path: 'a.ts', content: 'a TODO b' })).toMatchObject({ isError: false })
  })
})

describe('ask rules', () => {
  test('an ask goes to the approval service with the rule as the reason; its answer decides', async () => {
    let answer: Approve = allowAll
    const { run, asked, ran } = await setup({ rules: [{ tool: 'shell', decision: 'ask', reason: 'commands need a human' }] }, (req) => answer(req))
    expect(await run('shell', { cmd: 'ls' })).toMatchObject({ isError: false })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ reason: 'rule #1 (ask shell): commands need a human', source: 'permission-policy' })
    expect(asked[0].exec).toMatchObject({ name: 'shell', arguments: { cmd: 'ls' } })
    answer = denyAll
    const denied = await run('shell', { cmd: 'ls' })
    expect(denied).toMatchObject({ error: { code: 'DENIED', source: 'approval' } })
    expect(denied.isError && denied.error.message).toContain('the user said no')
    expect(ran).toEqual(['shell'])
    expect(await run('fs_read')).toMatchObject({ isError: false })
    expect(asked).toHaveLength(2)
  })

  test('an ask rule beats an allow rule whatever the order', async () => {
    const { run, asked } = await setup(
      {
        rules: [
          { tool: 'shell', decision: 'ask' },
          { tool: '*', decision: 'allow' },
        ],
      },
      denyAll,
    )
    expect(await run('shell')).toMatchObject({ error: { code: 'DENIED' } })
    expect(asked).toHaveLength(1)
  })

  test('a denial from an inner listener beats our ask, so nobody is asked about a call that is refused anyway', async () => {
    const { ctx, run, asked } = await setup({ rules: [{ tool: 'shell', decision: 'ask' }] }, allowAll)
    await ctx.plugin({
      name: 'sandbox',
      inject: ['tools'],
      apply: (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'outside the sandbox' })),
    })
    expect(await run('shell')).toMatchObject({ error: { code: 'DENIED', message: 'outside the sandbox', source: 'sandbox' } })
    expect(asked).toEqual([])
  })

  test('when an inner listener also asks, one question carries both reasons', async () => {
    const { ctx, run, asked } = await setup({ rules: [{ tool: 'shell', decision: 'ask' }] }, allowAll)
    await ctx.plugin({
      name: 'hooks',
      inject: ['tools'],
      apply: (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'a hook wants a look' })),
    })
    expect(await run('shell')).toMatchObject({ isError: false })
    expect(asked.map((r) => [r.source, r.reason])).toEqual([['permission-policy', 'rule #1 (ask shell); hooks also asks: a hook wants a look']])
  })

  test('without an approval service an ask denies and says so', async () => {
    const { run, ran } = await setup({ rules: [{ tool: 'shell', decision: 'ask' }] })
    const result = await run('shell')
    expect(result).toMatchObject({ error: { code: 'DENIED' } })
    expect(result.isError && result.error.message).toContain('no approval service')
    expect(ran).toEqual([])
  })
})

describe('default', () => {
  test("'deny' denies only calls no allow or ask rule matches, and it is a guard too", async () => {
    const { ctx, run, asked, ran } = await setup(
      {
        default: 'deny',
        rules: [
          { tool: 'fs_read', decision: 'allow' },
          { tool: 'fs_write', when: { path: 'src/**' }, decision: 'allow' },
          { tool: 'shell', decision: 'ask' },
        ],
      },
      allowAll,
    )
    await ctx.plugin({ name: 'yes-man', inject: ['tools'], apply: (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'allow' }), { prepend: true }) })
    expect(await run('fs_read')).toMatchObject({ isError: false })
    expect(await run('fs_write', { path: 'src/a.ts' })).toMatchObject({ isError: false })
    expect(await run('fs_write', { path: 'README.md' })).toMatchObject({
      error: { code: 'DENIED', message: 'no rule matches `fs_write` and the default is deny' },
    })
    // An allow must match every spelling of the path, so `src/..` cannot climb out of it.
    expect(await run('fs_write', { path: 'src/../.env' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(ran).toEqual(['fs_read', 'fs_write'])
    expect(asked).toEqual([]) // the yes-man short-circuits the waterfall before the ask
  })

  test("'ask' asks about calls no rule matches; an allow rule skips the question", async () => {
    const { run, asked } = await setup({ default: 'ask', rules: [{ tool: 'fs_read', decision: 'allow' }] }, allowAll)
    expect(await run('fs_read')).toMatchObject({ isError: false })
    expect(asked).toEqual([])
    expect(await run('shell')).toMatchObject({ isError: false })
    expect(asked.map((r) => r.reason)).toEqual(['no rule matches `shell` and the default is ask'])
  })

  test("'allow' (the default) with no rules changes nothing", async () => {
    const { run, ran } = await setup(undefined)
    expect(await run('shell')).toMatchObject({ isError: false })
    expect(ran).toEqual(['shell'])
  })
})

test('disposal takes the guard and the listener with it', async () => {
  const { fiber, run, ran } = await setup({ default: 'ask', rules: [{ tool: 'shell', decision: 'deny' }] })
  expect(await run('shell')).toMatchObject({ error: { code: 'DENIED' } })
  expect(await run('fs_read')).toMatchObject({ error: { code: 'DENIED' } })
  await fiber.dispose()
  expect(await run('shell')).toMatchObject({ isError: false })
  expect(await run('fs_read')).toMatchObject({ isError: false })
  expect(ran).toEqual(['shell', 'fs_read'])
})

test('apply called directly (not through ctx.plugin) parses its input, defaults included', async () => {
  const { ctx, run } = await setup(undefined)
  await ctx.plugin({ name: 'embedder', inject: ['tools'], apply: (ctx) => apply(ctx, { rules: [{ tool: 'shell', decision: 'deny' }] }) })
  expect(await run('shell')).toMatchObject({ error: { code: 'DENIED', message: 'rule #1 (deny shell)' } })
  expect(await run('fs_read')).toMatchObject({ isError: false })
  expect(() => apply(ctx, { default: 'block' } as never)).toThrow(/default must be/)
})

describe('config validation', () => {
  const bad = async (config: unknown) => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    return ctx.plugin(PermissionPolicy, config as never).then(
      () => undefined,
      (error: ValidationError) => error,
    )
  }

  test.each([
    [{ rules: [{ tool: 'shell', decision: 'maybe' }] }, 'decision must be "allow", "deny" or "ask" (at rules.0.decision)'],
    [{ rules: [{ tool: '', decision: 'deny' }] }, 'tool must be a non-empty glob (at rules.0.tool)'],
    [
      { rules: [{ tool: 'x', decision: 'deny', when: { 'a..b': '*' } }] },
      '`when` key "a..b" must be a dotted argument path like "path" or "options.mode" (at rules.0.when)',
    ],
    [{ rules: [{ tool: 'x', decision: 'deny', when: { path: 3 } }] }, 'rules.0.when.path'],
    [{ rules: [{ tool: 'x', decision: 'deny', tools: 'y' }] }, 'tools'],
    [{ default: 'block' }, 'default must be "allow", "ask" or "deny" (at default)'],
    [{ rules: { tool: 'x' } }, '(at rules)'],
  ])('%j is refused with a clear ValidationError', async (config, message) => {
    const error = await bad(config)
    expect(error?.name).toBe('ValidationError')
    expect(error?.message).toContain(message)
  })
})

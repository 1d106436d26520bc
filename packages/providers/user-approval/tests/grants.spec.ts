import { existsSync } from 'node:fs'
import { readFile, writeFile, mkdir, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { cleanup, deferred, eventually, plug } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import UserApproval, { argumentsHash, canonicalJson, GrantStore, readGrantsFile, type Grant } from '../src/index.js'
import type { JsonValue, ToolExecution } from '@dshkit/tools'
import { pipeline } from './pipeline.js'
import { terminal } from './helpers.js'

afterEach(cleanup)

const write = (path: string, content = 'x') => ({ path, content })
const deniedBy = (result: unknown) => (result as { error?: { source?: string } }).error?.source

describe('answers are bound to the exact call', () => {
  test('an exact grant allows the same tool and arguments (any key order) without asking, and nothing else', async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow', grant: 'exact' }))
    expect(await p.call('fs_write', write('a.txt', 'one'))).toMatchObject({ isError: false })
    expect(p.asked).toHaveLength(1)
    p.answer(() => ({ kind: 'deny', reason: 'not that one' }))
    // The same call, keys in another order: the grant answers, no one is asked.
    expect(await p.call('fs_write', { content: 'one', path: 'a.txt' })).toMatchObject({ isError: false })
    expect(p.asked).toHaveLength(1)
    // Other content, other path, other tool: asked again, and denied.
    expect(await p.call('fs_write', write('a.txt', 'two'))).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('not that one') } })
    expect(await p.call('fs_write', write('b.txt', 'one'))).toMatchObject({ error: { code: 'DENIED' } })
    expect(await p.call('shell', { command: 'echo one' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(p.asked).toHaveLength(4)
    expect(await readFile(`${p.dir}/a.txt`, 'utf8')).toBe('one')
    const { grants } = await readGrantsFile(p.file)
    expect(grants).toEqual([
      {
        id: expect.stringMatching(/^g_[0-9a-f]{16}$/),
        created: expect.any(String),
        kind: 'exact',
        tool: 'fs_write',
        argumentsHash: argumentsHash({ path: 'a.txt', content: 'one' }),
        summary: 'fs_write {"path":"a.txt","content":"one"}',
        by: 'responder',
      },
    ])
  })

  test('a plain allow is for that call only; `always: true` (old spelling) stores an exact grant', async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow' }))
    expect(await p.call('shell', { command: 'echo a' })).toMatchObject({ isError: false })
    p.answer(() => undefined)
    expect(await p.call('shell', { command: 'echo a' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await p.ctx.approval.grants.list()).toEqual([])
    p.answer(() => ({ kind: 'allow', always: true }))
    expect(await p.call('shell', { command: 'echo a' })).toMatchObject({ isError: false })
    p.answer(() => undefined)
    expect(await p.call('shell', { command: 'echo a' })).toMatchObject({ isError: false, content: [{ text: expect.stringContaining('a') }] })
    expect(await p.call('shell', { command: 'echo b' })).toMatchObject({ error: { code: 'DENIED' } })
  })

  test('answer() needs the hash the ask was shown with: an answer for arguments A never approves arguments B', async () => {
    const p = await pipeline()
    const shown = deferred<void>()
    p.answer(() => (shown.resolve(), new Promise(() => {}))) // a page: shows the ask, answers later
    const running = p.call('fs_write', write('b.txt', 'evil'))
    await shown.promise
    const [ask] = p.ctx.approval.pending()
    expect(ask).toMatchObject({ tool: 'fs_write', arguments: { path: 'b.txt', content: 'evil' }, source: 'permission-policy', callId: 'call-1' })
    expect(ask.reason).toContain('writes need a human')
    expect(ask.argumentsHash).toBe(argumentsHash({ content: 'evil', path: 'b.txt' }))
    expect(Date.parse(ask.askedAt)).toBeGreaterThan(Date.now() - 60_000)
    // The person approved a.txt/"good" on the page; that answer arrives for this request.
    const approvedHash = argumentsHash(write('b.txt', 'good'))
    expect(p.ctx.approval.answer(ask.requestId, approvedHash, { kind: 'allow', grant: 'exact' })).toMatchObject({ ok: false, reason: 'mismatch' })
    expect(p.ctx.approval.pending()).toHaveLength(1)
    expect(p.ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'deny', reason: 'no evil' })).toEqual({ ok: true })
    expect(await running).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining(': no evil') } })
    expect(p.ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'answered' })
    expect(p.ctx.approval.answer('a_nope', ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'unknown' })
    expect(existsSync(`${p.dir}/b.txt`)).toBe(false)
    expect(await p.ctx.approval.grants.list()).toEqual([])
  })

  test('a malformed answer() settles the ask as a deny (fail closed)', async () => {
    const p = await pipeline()
    p.answer(() => new Promise(() => {}))
    const running = p.call('shell', { command: 'true' })
    await eventually(() => expect(p.ctx.approval.pending()).toHaveLength(1))
    const [ask] = p.ctx.approval.pending()
    expect(p.ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'yes' } as never)).toEqual({ ok: true })
    expect(await running).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('an approval responder answered {"kind":"yes"}') } })
  })

  test('a new grant lets the pending asks it covers through; other pending asks keep waiting', async () => {
    const p = await pipeline()
    p.answer(() => new Promise(() => {}))
    const first = p.call('fs_write', write('same.txt'))
    const second = p.call('fs_write', write('same.txt'))
    const other = p.call('fs_write', write('other.txt'))
    await eventually(() => expect(p.ctx.approval.pending()).toHaveLength(3))
    const [ask] = p.ctx.approval.pending()
    expect(p.ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow', grant: 'exact' })).toEqual({ ok: true })
    expect(await first).toMatchObject({ isError: false })
    expect(await second).toMatchObject({ isError: false })
    expect(p.ctx.approval.pending().map((a) => a.arguments)).toEqual([write('other.txt')])
    expect(await p.ctx.approval.grants.list()).toHaveLength(1)
    const [left] = p.ctx.approval.pending()
    p.ctx.approval.answer(left.requestId, left.argumentsHash, { kind: 'deny' })
    expect(await other).toMatchObject({ error: { code: 'DENIED' } })
  })
})

describe('rule grants', () => {
  test('a `when` rule allows what it matches as permission-policy would; the rest is still asked', async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow', grant: { rule: { tool: 'fs_write', when: { path: 'notes/**' } } }, by: 'web' }))
    expect(await p.call('fs_write', write('notes/a.md'))).toMatchObject({ isError: false })
    p.answer(() => ({ kind: 'deny' }))
    expect(await p.call('fs_write', write('notes/deep/b.md'))).toMatchObject({ isError: false })
    // Another spelling that leaves notes/ is not covered: every spelling must match, as for an allow rule.
    expect(await p.call('fs_write', write('notes/../src/c.ts'))).toMatchObject({ error: { code: 'DENIED' } })
    expect(await p.call('fs_write', write('src/c.ts'))).toMatchObject({ error: { code: 'DENIED' } })
    expect(p.asked.map((a) => (a.arguments as { path: string }).path)).toEqual(['notes/a.md', 'notes/../src/c.ts', 'src/c.ts'])
    const [grant] = await p.ctx.approval.grants.list()
    expect(grant).toMatchObject({
      kind: 'rule',
      tool: 'fs_write',
      rule: { tool: 'fs_write', when: { path: 'notes/**' } },
      summary: 'fs_write when path="notes/**"',
      by: 'web',
    })
  })

  test('a `command` rule covers a shell line only when every command in it is covered', async () => {
    const p = await pipeline()
    await p.ctx.approval.grants.add({ kind: 'rule', rule: { tool: 'shell', command: 'echo *' } })
    expect(await p.call('shell', { command: 'echo hi' })).toMatchObject({ isError: false })
    expect(p.asked).toHaveLength(0)
    expect(await p.call('shell', { command: 'echo hi && touch pwned' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await p.call('shell', { command: 'echo $(touch pwned)' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(p.asked).toHaveLength(2)
    expect(existsSync(`${p.dir}/pwned`)).toBe(false)
  })

  test('a rule answer that is not a valid rule denies the call (fail closed) and stores nothing', async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow', grant: { rule: { tool: 'fs_write', when: { 'a..b': '*' } } } }))
    const result = await p.call('fs_write', write('a.txt'))
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('answered a grant that is not valid') } })
    p.answer(() => ({ kind: 'allow', grant: { rule: { tool: 'fs_write', decision: 'deny' } as never } }))
    expect(await p.call('fs_write', write('a.txt'))).toMatchObject({ error: { message: expect.stringContaining('takes no `decision`') } })
    expect(await p.ctx.approval.grants.list()).toEqual([])
    expect(existsSync(p.file)).toBe(false)
    await expect(p.ctx.approval.grants.add({ kind: 'rule', rule: { tool: 'fs_write', wen: {} } as never })).rejects.toThrow(/wen/)
  })
})

describe('a grant rule that can never match', () => {
  test.each([
    [{ tool: 'fs_wrte', when: { path: 'notes/**' } }, /no tool "fs_wrte" is registered; did you mean "fs_write"\?/],
    [{ tool: 'Shell', command: 'echo *' }, /did you mean "shell"\? \(tool names are case-sensitive\)/],
    [{ tool: 'fs_write', when: { pth: 'notes/**' } }, /"pth", which fs_write does not declare; did you mean "path"\?/],
    [{ tool: 'fs_write', when: { command: 'x' } }, /"command", which fs_write does not declare \(shell does/],
  ])('is not stored: the call is allowed once and the log says why (%#)', async (rule, why) => {
    const p = await pipeline()
    const answered: { reason?: string }[] = []
    p.ctx.on('approval/answered', (_ask, outcome) => void answered.push(outcome))
    p.answer(() => ({ kind: 'allow', grant: { rule } }))
    expect(await p.call('fs_write', write('notes/a.md'))).toMatchObject({ isError: false })
    expect(answered[0].reason).toMatch(/^allowed once; the grant could not be stored: the grant rule can never match: /)
    expect(answered[0].reason).toMatch(why)
    expect(await p.ctx.approval.grants.list()).toEqual([])
    p.answer(() => ({ kind: 'deny' }))
    expect(await p.call('fs_write', write('notes/a.md'))).toMatchObject({ error: { code: 'DENIED' } })
  })
})

describe('stored, shared, revocable', () => {
  test('revoke(id) removes a grant: the next identical call is asked again', async () => {
    const p = await pipeline()
    const grant = await p.ctx.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: argumentsHash({ command: 'echo x' }) })
    expect(await p.call('shell', { command: 'echo x' })).toMatchObject({ isError: false })
    expect(await p.ctx.approval.grants.revoke(grant.id)).toBe(true)
    expect(await p.ctx.approval.grants.revoke(grant.id)).toBe(false)
    expect(await p.call('shell', { command: 'echo x' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await readGrantsFile(p.file)).toEqual({ version: 1, grants: [] })
  })

  test('`a` at the terminal stores an exact grant in the file, which a programmatic-only service on the same file honours', async () => {
    const term = terminal()
    const p = await pipeline({ approval: { responder: 'tty', input: term.input, output: term.output } })
    const running = p.call('fs_write', write('a.txt', 'from tty'))
    await term.waitFor('[a]lways: ')
    term.type('a\n')
    expect(await running).toMatchObject({ isError: false })
    expect((await readGrantsFile(p.file)).grants).toEqual([expect.objectContaining({ kind: 'exact', tool: 'fs_write', by: 'tty' })])
    const other = await pipeline({ dir: p.dir })
    expect(await other.call('fs_write', write('a.txt', 'from tty'))).toMatchObject({ isError: false })
    expect(await other.call('fs_write', write('a.txt', 'other'))).toMatchObject({ error: { code: 'DENIED' } })
    expect(other.asked).toHaveLength(1)
  })

  test('two services on one file share grants; a revoke by another writer counts at the next ask', async () => {
    const p = await pipeline()
    const other = await pipeline({ dir: p.dir })
    p.answer(() => ({ kind: 'allow', grant: 'exact' }))
    expect(await p.call('fs_write', write('a.txt'))).toMatchObject({ isError: false })
    expect(await other.call('fs_write', write('a.txt'))).toMatchObject({ isError: false })
    expect(other.asked).toHaveLength(0)
    const [grant] = await other.ctx.approval.grants.list()
    // Another process (dshkit grants revoke) edits the file.
    expect(await new GrantStore(p.file, { pathsOf: () => () => undefined, targets: () => undefined }).revoke(grant.id)).toBe(true)
    expect(await p.call('fs_write', write('a.txt'))).toMatchObject({ isError: false })
    expect(p.asked).toHaveLength(2)
  })

  test('the file is written atomically, private, with no temp files left; a grant is never duplicated', async () => {
    const p = await pipeline()
    const hash = argumentsHash({ command: 'true' })
    const added = await Promise.all(
      Array.from({ length: 20 }, (_, i) => p.ctx.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: i % 2 ? hash : argumentsHash({ i }) })),
    )
    const { grants } = await readGrantsFile(p.file)
    expect(grants).toHaveLength(11) // ten distinct calls, and the one added ten times is kept once
    expect(new Set(added.filter((g) => g.kind === 'exact' && g.argumentsHash === hash).map((g) => g.id)).size).toBe(1)
    expect(((await stat(p.file)).mode & 0o777).toString(8)).toBe('600')
    const { readdir } = await import('node:fs/promises')
    expect(await readdir(dirname(p.file))).toEqual(['grants.json'])
  })
})

describe('a grant never overrides a deny rule or a guard', () => {
  test('a rule grant for every fs_write and an exact grant for the call: the deny rule still denies, nobody is asked', async () => {
    const p = await pipeline()
    await p.ctx.approval.grants.add({ kind: 'rule', rule: { tool: 'fs_write' } })
    await p.ctx.approval.grants.add({ kind: 'exact', tool: 'fs_write', argumentsHash: argumentsHash(write('yarn.lock')) })
    p.answer(() => ({ kind: 'allow' }))
    const result = await p.call('fs_write', write('yarn.lock'))
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('lock files are generated') } })
    expect(deniedBy(result)).toBe('permission-policy')
    expect(p.asked).toHaveLength(0)
    expect(existsSync(`${p.dir}/yarn.lock`)).toBe(false)
    expect(await p.call('fs_write', write('ok.txt'))).toMatchObject({ isError: false })
  })

  test('a tools/pre-execute deny from another listener wins over a grant', async () => {
    const p = await pipeline({
      extra: [
        {
          name: 'no-secrets',
          inject: ['tools'],
          apply: (ctx: any) =>
            ctx.on('tools/pre-execute', (exec: any, next: any) => (exec.arguments.path === 'secret' ? { kind: 'deny', reason: 'no secrets' } : next())),
        },
      ],
    })
    await p.ctx.approval.grants.add({ kind: 'rule', rule: { tool: '*' } })
    expect(await p.call('fs_write', write('secret'))).toMatchObject({ error: { code: 'DENIED', message: 'no secrets' } })
  })
})

describe('a corrupt or hand-edited grants file', () => {
  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"version":1,"grants":[', /is not valid JSON/],
    [
      'a typo key',
      JSON.stringify({
        version: 1,
        grants: [{ id: 'g_1', created: new Date().toISOString(), kind: 'exact', tool: 'shell', argumentsHash: 'a'.repeat(64), summary: '', tol: 'x' }],
      }),
      /tol/,
    ],
    ['a __proto__ key', '{"version":1,"grants":[{"__proto__":{"kind":"rule"}}]}', /"__proto__".*not allowed/],
    [
      'a bad rule',
      JSON.stringify({ version: 1, grants: [{ id: 'g_1', created: new Date().toISOString(), kind: 'rule', tool: 'shell', summary: '', rule: { tool: '' } }] }),
      /grants\.0\.rule: tool: tool must be a non-empty glob/,
    ],
    [
      'a short hash',
      JSON.stringify({
        version: 1,
        grants: [{ id: 'g_1', created: new Date().toISOString(), kind: 'exact', tool: 'shell', argumentsHash: 'abc', summary: '' }],
      }),
      /argumentsHash must be 64/,
    ],
    ['another version', '{"version":2,"grants":[]}', /version must be 1/],
    ['an array', '[]', /expected \{ "version": 1/],
  ]
  test.each(cases)('%s: the call is denied naming the file, list() and add() refuse, the file is untouched', async (_name, text, problem) => {
    const p = await pipeline()
    await mkdir(dirname(p.file), { recursive: true })
    await writeFile(p.file, text)
    p.answer(() => ({ kind: 'allow' }))
    const result = await p.call('shell', { command: 'echo hi' })
    expect(result).toMatchObject({ error: { code: 'DENIED' } })
    const message = (result as { error: { message: string } }).error.message
    expect(message).toContain(`grants file ${p.file}: `)
    expect(message).toMatch(problem)
    expect(message).not.toContain('\n    at ')
    expect(p.asked).toHaveLength(0)
    await expect(p.ctx.approval.grants.list()).rejects.toThrow(`grants file ${p.file}`)
    await expect(p.ctx.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: 'b'.repeat(64) })).rejects.toThrow(problem)
    expect(await readFile(p.file, 'utf8')).toBe(text)
  })

  test('a symlink to /dev/zero (or any non-regular file) in its place is refused at once, not read', async () => {
    const p = await pipeline()
    await mkdir(dirname(p.file), { recursive: true })
    const { symlink } = await import('node:fs/promises')
    await symlink('/dev/zero', p.file)
    expect(await p.call('shell', { command: 'true' })).toMatchObject({
      error: { code: 'DENIED', message: expect.stringContaining(`grants file ${p.file}: is not a regular file`) },
    })
    await expect(p.ctx.approval.grants.list()).rejects.toThrow('is not a regular file')
  })

  test('a hand-written rule with a `__proto__` path in `when` is refused, not silently dropped', async () => {
    const p = await pipeline()
    await mkdir(dirname(p.file), { recursive: true })
    await writeFile(
      p.file,
      '{"version":1,"grants":[{"id":"g_1","created":"2026-01-01T00:00:00Z","kind":"rule","tool":"fs_write","summary":"","rule":{"tool":"fs_write","when":{"__proto__":"x"}}}]}',
    )
    await expect(p.ctx.approval.grants.list()).rejects.toThrow(/__proto__/)
  })
})

describe('hostile arguments', () => {
  test('`__proto__` keys never reach approval (the registry refuses them); canonical JSON keeps such keys as data', async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow', grant: 'exact' }))
    const result = await p.call('fs_write', JSON.parse('{"path":"a.txt","content":"x","__proto__":{"path":"/etc/passwd"}}'))
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(p.asked).toHaveLength(0)
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1},"a":[{"d":1,"c":2}]}'))).toBe('{"__proto__":{"x":1},"a":[{"c":2,"d":1}],"b":1}')
    expect(argumentsHash(JSON.parse('{"__proto__":{}}'))).not.toBe(argumentsHash({}))
  })

  test('arguments nested 100,000 deep are hashed and bound like any others (no stack overflow)', async () => {
    const p = await pipeline()
    let deep: JsonValue = 'bottom'
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    let seen = ''
    p.answer((ask) => ((seen = ask.argumentsHash), { kind: 'allow', grant: 'exact' }))
    const exec: ToolExecution = { callId: 'd', name: 'custom', arguments: deep, input: deep, token: Symbol('t'), signal: new AbortController().signal }
    expect(await p.ctx.approval.request({ exec, source: 'test' })).toEqual({ kind: 'allow' })
    expect(seen).toBe(argumentsHash(deep))
    const [grant] = await p.ctx.approval.grants.list()
    expect(grant.summary.length).toBeLessThan(400)
    p.answer(() => ({ kind: 'deny' }))
    expect(await p.ctx.approval.request({ exec: { ...exec, arguments: { a: deep } }, source: 'test' })).toMatchObject({ kind: 'deny' })
    expect(await p.ctx.approval.request({ exec, source: 'test' })).toEqual({ kind: 'allow' })
  })

  test('huge arguments: hashed whole, while the summary in the grant and the session stays bounded', async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow', grant: 'exact' }))
    const content = 'A'.repeat(2_000_000) + 'tail'
    expect(await p.call('fs_write', write('big.txt', content))).toMatchObject({ isError: false })
    const [grant] = await p.ctx.approval.grants.list()
    expect(grant.summary.length).toBeLessThan(400)
    expect(grant.summary).toContain('more characters')
    expect((await stat(p.file)).size).toBeLessThan(2000)
    // One character more at the end is another call.
    p.answer(() => undefined)
    expect(await p.call('fs_write', write('big.txt', `${content}!`))).toMatchObject({ error: { code: 'DENIED' } })
    expect(await p.call('fs_write', write('big.txt', content))).toMatchObject({ isError: false })
  })

  test("control characters in arguments, a responder's summary or `by` are stored escaped", async () => {
    const p = await pipeline()
    p.answer(() => ({ kind: 'allow', grant: 'exact' }))
    expect(await p.call('shell', { command: 'echo \x1b[2J\rok\u202e' })).toMatchObject({ isError: false })
    p.answer(() => ({ kind: 'allow', grant: 'exact', summary: 'fine\x1b]0;owned\x07\nsecond line', by: 'web\x1b[31m' }))
    expect(await p.call('shell', { command: 'echo two' })).toMatchObject({ isError: false })
    const grants: Grant[] = await p.ctx.approval.grants.list()
    const text = JSON.stringify(grants.map((g) => [g.summary, g.by]))
    expect(grants.map((g) => `${g.summary}${g.by}`).join('')).not.toMatch(/[\x00-\x1f\x7f\u202e]/)
    expect(grants[0].summary).toContain('\\u001b[2J\\r') // JSON's own escapes, as the prompt shows them
    expect(grants[0].summary).toContain('\\u202e')
    expect(text).toContain('fine\\\\x1b]0;owned\\\\x07 second line')
  })
})

test('without a file (`grants: false`) grants live in memory and nothing is written', async () => {
  const p = await pipeline({ approval: { grants: false } })
  expect(p.ctx.approval.grants.file).toBeUndefined()
  p.answer(() => ({ kind: 'allow', grant: 'exact' }))
  expect(await p.call('shell', { command: 'true' })).toMatchObject({ isError: false })
  expect(await p.ctx.approval.grants.list()).toHaveLength(1)
  expect(existsSync(dirname(p.file))).toBe(false)
})

test('a relative `grants` path resolves against the cwd when the plugin starts; a bad value is a clear config error', async () => {
  const p = await pipeline({ approval: { grants: false } })
  await expect(plug(p.ctx, UserApproval, { grants: 3 })).rejects.toThrow(/grants must be a file path, or false/)
  expect(p.ctx.approval.grants.file).toBeUndefined()
})

// Odd keys in arguments (`__proto__`, `constructor`, `prototype`, nested) must never reach a body that a
// policy would deny for the plain spelling: permission-policy deny rules and a real Claude Code PreToolUse hook.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import DshBase, { settle } from '../src/index.js'
// dsh-base does not bundle hooks; the real plugin and its fixture hook are taken from their package.
import HooksClaudeCode from '../../../packages/policies/hooks-claude-code/lib/index.js'
import { propertySeed } from '@dshkit/testing'

const protectSecrets = fileURLToPath(new URL('../../../packages/policies/hooks-claude-code/tests/fixtures/protect-secrets.sh', import.meta.url))
const PROTECTED = '{ "name": "victim" }\n'
const SECRET = 'hunter2\n'
let dir: string
let ctx: Context

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-proto-')))
  await mkdir(join(dir, 'secrets'))
  await mkdir(join(dir, '.claude'))
  await writeFile(join(dir, 'package.json'), PROTECTED)
  await writeFile(join(dir, 'secrets/key.txt'), SECRET)
  await writeFile(join(dir, 'notes.md'), 'hello\n')
  const hooks = { PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: protectSecrets }] }] }
  await writeFile(join(dir, '.claude/settings.json'), JSON.stringify({ hooks }))
  ctx = new Context()
  await ctx.plugin(DshBase, {
    'fs-sandbox': { roots: [dir] },
    'user-approval': { responder: 'headless' },
    'permission-policy': { rules: [{ tool: 'fs_{write,edit}', when: { path: '**/package.json' }, decision: 'deny', reason: 'package.json is protected' }] },
  })
  await ctx.plugin(HooksClaudeCode, { configPath: '.claude/settings.json', projectDir: dir })
  await settle(ctx)
}, 60_000)

afterAll(async () => {
  await ctx?.fiber.dispose()
  await rm(dir, { recursive: true, force: true })
})

const protectedFiles = async () => [await readFile(join(dir, 'package.json'), 'utf8'), await readFile(join(dir, 'secrets/key.txt'), 'utf8')]

test('the plain spellings are denied: by the permission rule and by the hook', async () => {
  const rule = await ctx.tools.execute({ callId: 'p1', name: 'fs_write', arguments: { path: 'package.json', content: 'x' } })
  expect(rule).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'permission-policy' } })
  const hook = await ctx.tools.execute({ callId: 'p2', name: 'fs_write', arguments: { path: 'secrets/key.txt', content: 'x' } })
  expect(hook).toMatchObject({ isError: true, error: { code: 'DENIED' } })
  expect(hook.isError && hook.error.message).toMatch(/secrets are read-only/)
  expect(await protectedFiles()).toEqual([PROTECTED, SECRET])
}, 30_000)

const oddKey = fc.constantFrom('__proto__', 'constructor', 'prototype')
const target = fc.constantFrom('package.json', 'sub/../package.json', 'secrets/key.txt')
/** A JSON text (so `__proto__` arrives as an own key, as from a model) of an object that hides a protected path under odd keys. */
const hidden: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    target.map((path) => JSON.stringify({ path })),
    fc.tuple(oddKey, tie('node')).map(([key, inner]) => `{${JSON.stringify(key)}:${inner}}`),
    fc.tuple(oddKey, target, tie('node')).map(([key, path, inner]) => `{"path":${JSON.stringify(path)},${JSON.stringify(key)}:${inner}}`),
  ),
})).node
/** Whether a parsed value holds an own `__proto__` key anywhere (what the model really sent). */
function hasProtoKey(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false
  return Object.keys(value).some((key) => key === '__proto__' || hasProtoKey((value as Record<string, unknown>)[key]))
}

const call = fc.record({
  tool: fc.constantFrom('fs_write', 'fs_edit'),
  benign: fc.constantFrom('out/a.txt', 'notes.md'),
  placement: fc.uniqueArray(fc.tuple(oddKey, hidden), { minLength: 1, maxLength: 3, selector: ([key]) => key }),
  // Without an own `path`, an inherited one is all a reader could find.
  pathAt: fc.constantFrom('first', 'last', 'none'),
})

test('odd keys never make a body act on what the rules and the hook deny for the plain spelling', async () => {
  const seed = propertySeed()
  console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  let n = 0
  await fc.assert(
    fc.asyncProperty(call, async ({ tool, benign, placement, pathAt }) => {
      const extra = placement.map(([key, value]) => `${JSON.stringify(key)}:${value}`)
      const body = tool === 'fs_write' ? '"content":"PWNED"' : '"old":"hello","new":"PWNED"'
      const target = tool === 'fs_edit' ? 'notes.md' : benign // an edit needs a file that exists
      const path = `"path":${JSON.stringify(target)}`
      const text = `{${[...(pathAt === 'first' ? [path] : []), body, ...extra, ...(pathAt === 'last' ? [path] : [])].join(',')}}`
      const args = JSON.parse(text)
      const result = await ctx.tools.execute({ callId: `c${++n}`, name: tool, arguments: args })
      expect(await protectedFiles()).toEqual([PROTECTED, SECRET])
      if (hasProtoKey(args)) {
        expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', message: expect.stringMatching(/key "__proto__" at .* is not allowed/) } })
      } else if (pathAt === 'none') {
        expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
      } else {
        // constructor / prototype are plain data the schema strips: the body acts on the path every policy judged.
        expect(result).toMatchObject({ isError: false })
        expect(await readFile(join(dir, target), 'utf8')).toContain('PWNED')
      }
      await writeFile(join(dir, 'notes.md'), 'hello\n')
      await rm(join(dir, 'out'), { recursive: true, force: true })
    }),
    { numRuns: 40, seed, verbose: 1 },
  )
}, 240_000)

import { expect, test } from 'vitest'
import { Context } from 'cordis'
import { z } from 'zod'
import { closestKey, editDistance, strictConfig } from '@dshkit/common'

const Rule = strictConfig({ tool: z.string(), decision: z.enum(['allow', 'deny']) })
const Config = strictConfig({
  roots: z.array(z.string()).default([]),
  readOnlyRoots: z.array(z.string()).default([]),
  rules: z.array(Rule).default([]),
}).prefault({})

const issuesOf = (value: unknown) => Config.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)

test('an unknown key is an issue at its own path with the closest valid key', () => {
  expect(issuesOf({ readonlyRoots: ['/srv'] })).toEqual(['readonlyRoots: unknown key; did you mean "readOnlyRoots"?'])
  expect(issuesOf({ read_only_roots: ['/srv'] })).toEqual(['read_only_roots: unknown key; did you mean "readOnlyRoots"?'])
  expect(issuesOf({ rots: ['/srv'] })).toEqual(['rots: unknown key; did you mean "roots"?'])
})

test('nested objects refuse unknown keys too, and a far-off key lists the valid ones', () => {
  expect(issuesOf({ rules: [{ tool: 'x', decision: 'deny', denny: 'x' }] })).toEqual(['rules.0.denny: unknown key; valid keys: tool, decision'])
})

test('unknown keys are reported alongside the other issues, each once', () => {
  expect(issuesOf({ roots: 'x', zzz: 1, yyy: 2 })).toEqual([
    'roots: Invalid input: expected array, received string',
    'zzz: unknown key; valid keys: roots, readOnlyRoots, rules',
    'yyy: unknown key; valid keys: roots, readOnlyRoots, rules',
  ])
})

test('valid configs parse as before: defaults, no extra keys in the output', () => {
  expect(Config.parse(undefined)).toEqual({ roots: [], readOnlyRoots: [], rules: [] })
  expect(Config.parse({ roots: ['a'] })).toEqual({ roots: ['a'], readOnlyRoots: [], rules: [] })
})

test('an object with no keys says what to do instead', () => {
  const None = strictConfig({}, { noKeysHint: 'set cwd on fs-local' })
  expect(None.safeParse({ cwd: '.' }).error?.issues[0]).toMatchObject({ path: ['cwd'], message: 'unknown key; set cwd on fs-local' })
})

test('cordis rejects ctx.plugin with a ValidationError naming the key, its path and the suggestion', async () => {
  const ctx = new Context()
  const plugin = { name: 'demo', Config, apply() {} }
  await expect(ctx.plugin(plugin, { rules: [{ tool: 'x', decision: 'deny', desicion: 'deny' }] } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('unknown key; did you mean "decision"? (at rules.0.desicion)'),
  })
})

test('closestKey only suggests plausible typos', () => {
  expect(closestKey('confg', ['id', 'name', 'config', 'disabled'])).toBe('config')
  expect(closestKey('maxAtempts', ['maxAttempts', 'baseDelayMs'])).toBe('maxAttempts')
  expect(closestKey('colour', ['roots', 'deny'])).toBeUndefined()
  expect(closestKey('ttl', ['dir', 'ttlMs'])).toBe('ttlMs')
  expect(closestKey('to', ['tool', 'timeoutMs'])).toBeUndefined()
  expect(editDistance('ab', 'ba')).toBe(1)
  expect(editDistance('', 'abc')).toBe(3)
})

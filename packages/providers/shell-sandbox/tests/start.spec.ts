import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, expect, test } from 'vitest'
import { cleanup, plug } from '@dshkit/testing'
import ShellSandbox from '../src/index.js'
import { makeTree } from './helpers.js'

afterEach(cleanup)

async function startFailure(config: object) {
  const ctx = new Context()
  const error = await plug(ctx, ShellSandbox, config).then(
    () => undefined,
    (error: Error) => error,
  )
  expect(ctx.get('shell')).toBeUndefined() // nothing unconfined was left in its place
  return error
}

test('a misspelled config key is refused, naming the key it meant', async () => {
  const ctx = new Context()
  await expect(ctx.plugin(ShellSandbox, { netwrok: true } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('unknown key; did you mean "network"?'),
  })
})

test('bubblewrap missing: starting fails with one clear line, and no shell is provided', async () => {
  const { root } = await makeTree()
  const error = await startFailure({ roots: [root], bwrapPath: '/nonexistent/bwrap' })
  expect(error?.message).toMatch(/^shell-sandbox cannot start: bubblewrap was not found at "\/nonexistent\/bwrap"; install it/)
  expect(error?.message).toContain('never run unconfined')
  expect(error?.message).not.toContain('\n')
})

test('a bwrap that cannot confine (its trial run fails) fails the start, never falls back', async () => {
  const { root } = await makeTree()
  const error = await startFailure({ roots: [root], bwrapPath: '/bin/false' })
  expect(error?.message).toMatch(/^shell-sandbox cannot start: a trial run of "\/bin\/false" failed/)
  expect(error?.message).not.toContain('\n')
})

test('a root that does not exist fails the start, naming it', async () => {
  const { base } = await makeTree()
  const error = await startFailure({ roots: [join(base, 'missing')] })
  expect(error?.message).toBe(
    `shell-sandbox cannot start: the sandbox root ${join(base, 'missing')} is not an existing directory (roots come from fs-sandbox's config); create it or fix the path`,
  )
})

test('a shell that does not exist inside the sandbox fails the start', async () => {
  const { root } = await makeTree()
  const error = await startFailure({ roots: [root], shell: '/no/such/shell' })
  expect(error?.message).toMatch(/^shell-sandbox cannot start: a trial run of "bwrap" failed: .*\/no\/such\/shell/)
})

import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, expect, test } from 'vitest'
import { cleanup, plug } from '@dshkit/testing'
import ShellSandbox, { UnavailableShell } from '../src/index.js'
import { findProgram } from '../src/program.js'
import { bootSandbox, makeTree } from './helpers.js'

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
  expect(error?.message).toMatch(/^shell-sandbox cannot start: a trial run of "\/[^"]*\/bwrap" failed: .*\/no\/such\/shell/)
})

test('whenUnavailable: refuse-commands starts without bubblewrap, and every command is refused with the reason; none runs', async () => {
  const { root } = await makeTree()
  for (const bwrapPath of ['/nonexistent/bwrap', 'no-such-bwrap-on-path', '/bin/false']) {
    const { shell } = await bootSandbox(root, { bwrapPath, whenUnavailable: 'refuse-commands' })
    expect(shell).toBeInstanceOf(UnavailableShell)
    expect(shell.sandboxed).toBe(true)
    const result = await shell.run({ command: `echo ran > ${join(root, 'ran.txt')}` })
    expect(result.error).toMatch(/^could not prepare the command: the sandboxed shell is unavailable: (bubblewrap was not found at|a trial run of)/)
    expect(result.exitCode).toBeNull()
    await expect(import('node:fs/promises').then((fs) => fs.stat(join(root, 'ran.txt')))).rejects.toThrow(/ENOENT/)
  }
})

test('bubblewrap is looked up once, on the PATH of the start, and run by its absolute path', async () => {
  const { root } = await makeTree()
  // Not on this PATH: not found, even where a spawn with no PATH would fall back to /usr/bin.
  expect(findProgram('bwrap', root)).toBeUndefined()
  expect(findProgram('bwrap', '')).toBeUndefined()
  expect(findProgram('bwrap', `relative:${root}`)).toBeUndefined()
  expect(findProgram('bwrap', `/nonexistent:/usr/bin:/bin`)).toBe('/usr/bin/bwrap')
  expect(findProgram('/usr/bin')).toBeUndefined() // a folder is no program
  const { shell } = await bootSandbox(root)
  const launch = (shell as any).launch({ command: 'true', cwd: root })
  expect(launch.file).toMatch(/^\/.*\/bwrap$/)
})

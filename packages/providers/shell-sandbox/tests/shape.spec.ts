import { existsSync } from 'node:fs'
import { afterEach, expect, test } from 'vitest'
import { cleanup, plug } from '@dshkit/testing'
import { Context } from 'cordis'
import ShellSandbox, { apply, Config, name } from '../src/index.js'
import { makeTree } from './helpers.js'

afterEach(cleanup)

test('the one plugin shape: name, strict Config, an arrow apply (cordis would `new` a function declaration)', () => {
  expect(ShellSandbox).toMatchObject({ name, Config, apply })
  expect(apply.prototype).toBeUndefined()
  expect(Config.safeParse({ bwrapPth: 'bwrap' }).success).toBe(false)
})

test('disposed, it no longer provides ctx.shell and removes its empty mount sources', async () => {
  const { root } = await makeTree()
  const ctx = new Context()
  const fiber = await plug(ctx, ShellSandbox, { roots: [root] })
  const flags = (ctx.get('shell') as any).flags() as string[]
  // `--ro-bind <empty file> <root>/.env`: the empty file lives in a temp dir of the plugin's own.
  const source = flags[flags.findIndex((flag, i) => flag === '--ro-bind' && flags[i + 2] === `${root}/.env`) + 1]
  expect(source).toMatch(/dshkit-shell-sandbox-.*\/file$/)
  expect(existsSync(source)).toBe(true)
  await fiber.dispose()
  expect(ctx.get('shell')).toBeUndefined()
  expect(existsSync(source)).toBe(false)
})

import { Context } from 'cordis'
import { expect, test } from 'vitest'
import Preset from '../src/index.js'

const failure = (config: unknown) =>
  new Context().plugin(Preset, config as any).then(
    () => undefined,
    (error: Error) => error,
  )

test('a typo inside the nested dsh-base config is refused with its full path', async () => {
  const error = await failure({ 'dsh-base': { 'fs-sandbox': { rots: ['.'] } } })
  expect(error?.name).toBe('ValidationError')
  expect(error?.message).toContain('unknown key; did you mean "roots"? (at dsh-base.fs-sandbox.rots)')
})

test('a typo at the preset level names the closest key', async () => {
  const error = await failure({ 'protect-path': {} })
  expect(error?.message).toContain('did you mean "protect-paths"?')
})

test('a bad value in one of our parts names the part', async () => {
  const error = await failure({ 'protect-paths': { deny: [''] } })
  expect(error?.message).toContain('a path prefix must not be empty (at protect-paths.deny.0)')
})

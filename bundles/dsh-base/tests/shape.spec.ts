import { definePlugin } from '@dshkit/tools'
import { expect, test } from 'vitest'
import DshBase, { apply, Config, name } from '../src/index.js'

test('the one plugin shape: name, strict Config, an arrow apply (cordis would `new` a function declaration)', () => {
  expect(DshBase).toMatchObject({ name, Config, apply })
  expect(apply.prototype).toBeUndefined()
  // definePlugin probes Config with an unknown key: dsh-base's refuses it, naming it
  expect(() => definePlugin(DshBase)).not.toThrow()
  expect(Config.safeParse({ 'fs-sandbx': {} }).error?.issues[0]).toMatchObject({ path: ['fs-sandbx'] })
})

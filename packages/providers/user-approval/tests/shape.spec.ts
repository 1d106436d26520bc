import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import { expect, test } from 'vitest'
import UserApproval, { apply, Config, name } from '../src/index.js'

test('the one plugin shape: name, strict Config, an arrow apply (cordis would `new` a function declaration)', () => {
  expect(UserApproval).toMatchObject({ name, Config, apply })
  expect(apply.prototype).toBeUndefined()
  expect(Config.safeParse({ respnder: 'tty' }).success).toBe(false)
})

test('a disposed user-approval no longer answers asks', async () => {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const fiber = ctx.plugin(UserApproval, { responder: 'headless' })
  await fiber
  expect(ctx.get('approval')).toBeDefined()
  await fiber.dispose()
  expect(ctx.get('approval')).toBeUndefined()
})

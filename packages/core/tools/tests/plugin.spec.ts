import { Context } from 'cordis'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { definePlugin } from '../src/index.js'
import { strictConfig } from '@dshkit/common'

const Config = strictConfig({ limit: z.number().default(1) }).prefault({})

test('definePlugin returns the plugin; cordis runs its arrow apply with the validated config and keeps its disposer', async () => {
  const seen: unknown[] = []
  let disposed = false
  const plugin = definePlugin({
    name: 'ok',
    Config,
    apply: (_ctx, config) => {
      seen.push(config.limit)
      return () => {
        disposed = true
      }
    },
  })
  const ctx = new Context()
  const fiber = ctx.plugin(plugin, { limit: 3 })
  await fiber
  expect(seen).toEqual([3])
  await fiber.dispose()
  expect(disposed).toBe(true)
})

test('a `function` declaration as apply is refused at definition, saying why and what to write', () => {
  expect(() => definePlugin({ name: 'decl', Config, apply: function apply() {} })).toThrow(
    /plugin "decl": apply is a `function` declaration, which cordis calls with `new`.*write it as an arrow/,
  )
})

test('a Config that accepts unknown keys is refused, pointing at strictConfig', () => {
  expect(() => definePlugin({ name: 'loose', Config: z.object({ limit: z.number().optional() }), apply: () => {} })).toThrow(
    /plugin "loose": Config accepts unknown keys.*strictConfig/,
  )
  expect(() => definePlugin({ name: 'strict', Config: z.strictObject({}), apply: () => {} })).not.toThrow()
})

test.each([
  [{ name: '', Config, apply: () => {} }, /name must be a non-empty string/],
  [{ name: 'x', inject: 'tools', Config, apply: () => {} }, /inject must be a list of service names/],
  [{ name: 'x', Config: {}, apply: () => {} }, /Config must be a Standard Schema/],
  [{ name: 'x', Config }, /apply must be a function/],
])('a malformed shape is named (%#)', (plugin, message) => {
  expect(() => definePlugin(plugin as any)).toThrow(message)
})

import { Context } from 'cordis'
import { expect, test } from 'vitest'
import SpillLocal, * as named from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([[SpillLocal, { ttl: 1000 }, 'unknown key; did you mean "ttlMs"? (at ttl)']] as const)(
  'a misspelled config key is refused, naming it and the key it meant (%#)',
  async (plugin, config, message) => {
    const ctx = new Context()
    await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
  },
)

// A `function` declaration apply is called by cordis with `new`, which loses the disposer it returns.
test('the default export is the one plugin shape: the named name, Config and an arrow apply', () => {
  expect(SpillLocal).toMatchObject({ name: 'spill-local', Config: named.Config, apply: named.apply })
  expect(named.apply.prototype).toBeUndefined()
})

import { Context } from 'cordis'
import { expect, test } from 'vitest'
import FsLocal from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([[FsLocal, { maxReadByte: 10 }, 'unknown key; did you mean "maxReadBytes"? (at maxReadByte)']] as const)(
  'a misspelled config key is refused, naming it and the key it meant (%#)',
  async (plugin, config, message) => {
    const ctx = new Context()
    await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
  },
)

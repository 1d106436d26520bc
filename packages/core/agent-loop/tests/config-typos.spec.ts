import { Context } from 'cordis'
import { expect, test } from 'vitest'
import AgentLoop from '../src/index.js'
import Session from '@dshkit/session'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([
  [AgentLoop, { maxParalel: 2 }, 'unknown key; did you mean "maxParallel"? (at maxParalel)'],
  [Session, { stroe: {} }, 'unknown key; did you mean "store"? (at stroe)'],
] as const)('a misspelled config key is refused, naming it and the key it meant (%#)', async (plugin, config, message) => {
  const ctx = new Context()
  await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

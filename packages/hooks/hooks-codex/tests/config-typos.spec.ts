import { Context } from 'cordis'
import { expect, test } from 'vitest'
import HooksCodex from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([
  [HooksCodex, { configPath: 'hooks.json', toolNames: { shell: { name: 'Bash', path: ['command'] } } }, 'unknown key; did you mean "paths"? (at toolNames.shell.path)'],
  [HooksCodex, { configPath: 'hooks.json', onErorr: 'allow' }, 'unknown key; did you mean "onError"? (at onErorr)'],
] as const)('a misspelled config key is refused, naming it and the key it meant (%#)', async (plugin, config, message) => {
  const ctx = new Context()
  await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

import { Context } from 'cordis'
import { expect, test } from 'vitest'
import HooksCodex, * as named from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([
  [
    HooksCodex,
    { configPath: 'hooks.json', toolNames: { shell: { name: 'Bash', path: ['command'] } } },
    'unknown key; did you mean "paths"? (at toolNames.shell.path)',
  ],
  [HooksCodex, { configPath: 'hooks.json', onErorr: 'allow' }, 'unknown key; did you mean "onError"? (at onErorr)'],
  [HooksCodex, { configPath: 'hooks.json', limits: { cpuSecond: 1 } }, 'unknown key; did you mean "cpuSeconds"? (at limits.cpuSecond)'],
] as const)('a misspelled config key is refused, naming it and the key it meant (%#)', async (plugin, config, message) => {
  const ctx = new Context()
  await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

// A `function` declaration apply is called by cordis with `new`, which loses the disposer it returns.
test('the default export is the one plugin shape: the named name, Config and an arrow apply', () => {
  expect(HooksCodex).toMatchObject({ name: 'hooks-codex', Config: named.Config, apply: named.apply })
  expect(named.apply.prototype).toBeUndefined()
})

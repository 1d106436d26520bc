import { Context } from 'cordis'
import { expect, test } from 'vitest'
import HooksClaudeCode, * as named from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([
  [
    HooksClaudeCode,
    { configPath: 'settings.json', toolNames: { fs_write: { name: 'Write', argument: { path: 'file_path' } } } },
    'unknown key; did you mean "arguments"? (at toolNames.fs_write.argument)',
  ],
  [HooksClaudeCode, { configPath: 'settings.json', project_dir: '.' }, 'unknown key; did you mean "projectDir"? (at project_dir)'],
  [HooksClaudeCode, { configPath: 'settings.json', limits: { memoryByte: 1 } }, 'unknown key; did you mean "memoryBytes"? (at limits.memoryByte)'],
] as const)('a misspelled config key is refused, naming it and the key it meant (%#)', async (plugin, config, message) => {
  const ctx = new Context()
  await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

// A `function` declaration apply is called by cordis with `new`, which loses the disposer it returns.
test('the default export is the one plugin shape: the named name, Config and an arrow apply', () => {
  expect(HooksClaudeCode).toMatchObject({ name: 'hooks-claude-code', Config: named.Config, apply: named.apply })
  expect(named.apply.prototype).toBeUndefined()
})

import { Context } from 'cordis'
import { expect, test } from 'vitest'
import HooksClaudeCode from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([
  [HooksClaudeCode, { configPath: 'settings.json', toolNames: { fs_write: { name: 'Write', argument: { path: 'file_path' } } } }, 'unknown key; did you mean "arguments"? (at toolNames.fs_write.argument)'],
  [HooksClaudeCode, { configPath: 'settings.json', project_dir: '.' }, 'unknown key; did you mean "projectDir"? (at project_dir)'],
] as const)('a misspelled config key is refused, naming it and the key it meant (%#)', async (plugin, config, message) => {
  const ctx = new Context()
  await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

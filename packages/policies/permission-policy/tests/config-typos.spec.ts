import { Context } from 'cordis'
import { expect, test } from 'vitest'
import PermissionPolicy from '../src/index.js'

// A misspelled key used to be dropped silently, leaving its protection off.
test.each([
  [
    PermissionPolicy,
    { rules: [{ tool: 'fs_*', when: { path: '**/package.json' }, decison: 'deny' }] },
    'unknown key; did you mean "decision"? (at rules.0.decison)',
  ],
  [
    PermissionPolicy,
    { rules: [{ tool: 'fs_*', decision: 'ask', denny: true }] },
    'unknown key; valid keys: tool, when, command, writes, decision, reason (at rules.0.denny)',
  ],
  [PermissionPolicy, { defualt: 'deny' }, 'unknown key; did you mean "default"? (at defualt)'],
] as const)('a misspelled config key is refused, naming it and the key it meant (%#)', async (plugin, config, message) => {
  const ctx = new Context()
  await expect(ctx.plugin(plugin as any, config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

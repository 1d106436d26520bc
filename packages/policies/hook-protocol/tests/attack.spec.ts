import { loadCommandParser } from '@dshkit/bash'
import { beforeAll, describe, expect, test } from 'vitest'
import { bashRuleMatches, parseHookSettings, plainRuleMatches, selectHooks } from '../src/index.js'

// Lines that run `git push` however they are spelled: a guard with `if: "Bash(git push)"` must run for each.
const PUSHES = [
  'git push',
  'ls && git push',
  'echo $(git push)',
  'bash -c "git push"',
  'sudo git push',
  'FOO=1 git push',
  'watch git push',
  'strace git push',
  'setsid git push',
  'flock /tmp/l git push',
  'taskset 1 git push',
  'trap "git push" EXIT',
  'coproc git push',
  '! git push',
  'xargs git push',
  'ls | xargs git push',
  'find . -exec git push {} ;',
  'git push $EXTRA',
  'git push # done',
]

describe('a Bash `if` is never skipped when the line may run the guarded command', () => {
  test.each(PUSHES)('plain reader (before the parser loads): %s', (line) => {
    expect(plainRuleMatches('git push', line)).toBe(true)
    expect(plainRuleMatches('git push*', line)).toBe(true)
  })

  describe('with the parser', () => {
    beforeAll(() => loadCommandParser())
    test.each(PUSHES)('%s', (line) => {
      expect(bashRuleMatches('git push', line)).toBe(true)
      expect(bashRuleMatches('git push*', line)).toBe(true)
    })
    test.each(['find . -name x', 'ls -la', 'git status', 'xargs rm', 'echo $HOME', 'command -v git', 'rm -rf $D'])(
      'and not for a line that cannot: %s',
      (line) => {
        expect(bashRuleMatches('git push', line)).toBe(false)
      },
    )
  })
})

describe('a misspelt tool event is a load error, not a guard that never runs', () => {
  test.each(['preToolUse', 'PretoolUse', 'PreToolUses', 'Pre_Tool_Use', 'PostToolUsed'])('%s', (event) => {
    const json = { hooks: { [event]: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }] } }
    expect(() => parseHookSettings(json, '/p/.claude/settings.json', 'Claude Code settings')).toThrow(
      /hooks\.\S+ is not a hook event; did you mean "(Pre|Post)ToolUse"\?/,
    )
  })

  test.each(['Stop', 'SessionStart', 'UserPromptSubmit', 'PreCompact', 'Notification', 'SubagentStop', 'SessionEnd'])(
    'a session event (%s) is read for the harness to fire; an event dshkit does not know is listed as ignored',
    (event) => {
      const hooks = [{ hooks: [{ type: 'command', command: 'notify' }] }]
      const settings = parseHookSettings({ hooks: { [event]: hooks, WorktreeCreate: hooks } }, '/p/settings.json', 'Claude Code settings')
      expect(settings[event as 'Stop'][0].hooks).toMatchObject([{ command: 'notify' }])
      expect(settings.ignoredEvents).toEqual(['WorktreeCreate'])
    },
  )
})

describe('de-duplication never drops a different program', () => {
  test('two plugins with the same command text reading $CLAUDE_PLUGIN_ROOT at run time both run', () => {
    const plugin = (root: string) =>
      parseHookSettings(
        { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 "$CLAUDE_PLUGIN_ROOT/guard.py"' }] }] } },
        `${root}/hooks/hooks.json`,
        'Claude Code settings',
        { env: { CLAUDE_PLUGIN_ROOT: root } },
      )
    const a = plugin('/plugins/a')
    const b = plugin('/plugins/b')
    const merged = { ...a, PreToolUse: [...a.PreToolUse, ...b.PreToolUse] }
    const selected = selectHooks(merged, 'PreToolUse', { toolName: 'Bash', toolInput: { command: 'ls' }, projectDir: '/p' })
    expect(selected.map((h) => h.env?.CLAUDE_PLUGIN_ROOT)).toEqual(['/plugins/a', '/plugins/b'])
  })
})

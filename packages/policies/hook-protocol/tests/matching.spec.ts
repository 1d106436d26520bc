import { loadCommandParser } from '@dshkit/bash'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  bashRuleMatches,
  plainRuleMatches,
  compileIfRule,
  compileMatcher,
  MAX_MATCHER_LENGTH,
  parseHookSettings,
  selectHooks,
  toolNamesFor,
} from '../src/index.js'

const names = (matcher: string, dialect: 'claude-code' | 'codex' = 'claude-code') => {
  const m = compileMatcher(matcher, dialect)
  return (...tools: string[]) => tools.map(m)
}

describe('Claude Code matchers', () => {
  test('| and , separated plain names are an exact list, spaces allowed', () => {
    expect(names('Edit, Write')('Edit', 'Write', 'MultiEdit', 'Writer')).toEqual([true, true, false, false])
    expect(names('Edit|Write')('Edit', 'Write', 'NotebookEdit')).toEqual([true, true, false])
    expect(names(' Read , Grep| Glob ')('Read', 'Grep', 'Glob', 'Bash')).toEqual([true, true, true, false])
  })

  test('MCP names: a full name is exact, a server prefix alone matches no tool, a regex matches the server', () => {
    expect(names('mcp__memory__create_entities')('mcp__memory__create_entities', 'mcp__memory__delete')).toEqual([true, false])
    expect(names('mcp__memory')('mcp__memory__create_entities')).toEqual([false])
    expect(names('mcp__memory__.*')('mcp__memory__create_entities', 'mcp__github__x')).toEqual([true, false])
    expect(names('mcp__.*__write.*')('mcp__filesystem__write_file', 'mcp__filesystem__read_file')).toEqual([true, false])
  })

  test('a regex is unanchored: Edit$ matches MultiEdit, ^Edit$ only Edit', () => {
    expect(names('Edit$')('MultiEdit', 'Edit', 'EditX')).toEqual([true, true, false])
    expect(names('^Edit$')('MultiEdit', 'Edit')).toEqual([false, true])
    expect(names('Notebook.*')('NotebookEdit', 'XNotebook')).toEqual([true, true])
  })

  test('a catastrophic regex runs in linear time (RE2), so a matcher cannot hang a call', () => {
    const evil = compileMatcher('(a+)+$')
    const started = performance.now()
    expect(evil(`${'a'.repeat(5000)}!`)).toBe(false)
    expect(evil('a'.repeat(5000))).toBe(true)
    // Backtracking engines take years here; RE2 takes milliseconds. Generous bound: this guards a hang, not speed.
    expect(performance.now() - started).toBeLessThan(5000)
  })

  test('lookaround, backreferences and oversized matchers are refused at load with a fix', () => {
    expect(() => compileMatcher('^(?!Read).*')).toThrow(/lookaround and backreferences are not supported, list the tool names instead/)
    expect(() => compileMatcher('(a)\\1')).toThrow(/regex RE2 can run/)
    expect(() => compileMatcher('x'.repeat(MAX_MATCHER_LENGTH + 1) + '.*')).toThrow(`at most ${MAX_MATCHER_LENGTH} are accepted`)
  })

  test('names that are also Object.prototype keys match only themselves', () => {
    expect(names('constructor|__proto__')('constructor', '__proto__', 'toString', 'hasOwnProperty')).toEqual([true, true, false, false])
  })
})

describe('Codex matchers', () => {
  test('only letters, digits, _ and | make an exact list; a comma or space makes a regex', () => {
    expect(names('Edit|Write', 'codex')('Edit', 'Write', 'MultiEdit')).toEqual([true, true, false])
    // Codex reads `Edit, Write` as a regex: it matches only a name containing that text.
    expect(names('Edit, Write', 'codex')('Edit', 'Write')).toEqual([false, false])
    expect(names('^Bash', 'codex')('BashOutput')).toEqual([true])
  })

  test('apply_patch is also matched as Write and Edit, as Codex does', () => {
    expect(toolNamesFor('apply_patch', 'codex')).toEqual(['apply_patch', 'Write', 'Edit'])
    expect(toolNamesFor('apply_patch', 'claude-code')).toEqual(['apply_patch'])
    expect(toolNamesFor('Bash', 'codex')).toEqual(['Bash'])
  })

  test('a hooks.json with ^apply_patch$, Write|Edit or apply_patch|Write|Edit each selects its handler once for an apply_patch call', () => {
    const settings = parseHookSettings(
      {
        hooks: {
          PreToolUse: [
            { matcher: '^apply_patch$', hooks: [{ type: 'command', command: 'a' }] },
            { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'b' }] },
            { matcher: 'apply_patch|Write|Edit', hooks: [{ type: 'command', command: 'c' }] },
            { matcher: '^Bash$', hooks: [{ type: 'command', command: 'd' }] },
          ],
        },
      },
      '/x/hooks.json',
      'Codex hooks',
      { dialect: 'codex' },
    )
    const selected = selectHooks(settings, 'PreToolUse', { toolName: 'apply_patch', toolInput: { command: '*** Begin Patch' }, projectDir: '/x' })
    expect(selected.map((h) => h.command)).toEqual(['a', 'b', 'c'])
  })
})

describe('if (permission-rule syntax)', () => {
  beforeAll(() => loadCommandParser())
  const subject = (toolName: string, toolInput: unknown) => ({ toolNames: [toolName], toolInput, projectDir: '/proj' })

  test('Bash(git *): git commands match, other commands do not', () => {
    const rule = compileIfRule('Bash(git *)')
    expect(rule(subject('Bash', { command: 'git push --force' }))).toBe(true)
    expect(rule(subject('Bash', { command: 'git' }))).toBe(true)
    expect(rule(subject('Bash', { command: 'FOO=1 BAR="x y" git status' }))).toBe(true)
    expect(rule(subject('Bash', { command: 'gitk' }))).toBe(false)
    expect(rule(subject('Bash', { command: 'ls -la' }))).toBe(false)
    expect(rule(subject('Edit', { command: 'git push' }))).toBe(false)
  })

  test('with the bash parser, each command of a line is judged, through wrappers and spellings', () => {
    for (const command of [
      'ls && rm -rf build',
      'ls; rm x',
      'cat a | xargs rm',
      'echo $(rm x)',
      'echo `rm x`',
      'ls\nrm x',
      'sudo rm -rf /',
      'env X=1 rm x',
      'timeout 5 rm x',
      '/bin/rm x',
      '"rm" x',
      '\\rm x',
      'bash -c "rm x"',
      'eval "$CMD"',
      '$TOOL x',
    ])
      expect(bashRuleMatches('rm *', command), command).toBe(true)
    for (const command of ['ls -la', 'sudo ls', 'echo rm', 'git rm x']) expect(bashRuleMatches('rm *', command), command).toBe(false)
    expect(bashRuleMatches('rm *', undefined)).toBe(true)
    expect(bashRuleMatches('git *', 'git')).toBe(true)
  })

  test('without the parser, a line the plain reader cannot read runs the hook', () => {
    for (const command of [
      'ls && git push',
      'ls; git push',
      'ls | git apply',
      'echo $(git push)',
      'echo `git push`',
      'ls\ngit push',
      'sudo git push',
      'env git push',
      'command git push',
      '/usr/bin/git push',
      '"git" push',
      '\\git push',
      'bash -c "git push"',
    ])
      expect(plainRuleMatches('rm *', command), command).toBe(true)
    expect(plainRuleMatches('rm *', 'ls -la')).toBe(false)
    expect(plainRuleMatches('git *', 'FOO=1 git status')).toBe(true)
  })

  test('a file rule names one tool (Edit(*.ts) is not a Write); ./secrets/** is secrets at any depth', () => {
    const ts = compileIfRule('Edit(*.ts)')
    expect(ts(subject('Edit', { file_path: '/proj/src/deep/a.ts' }))).toBe(true)
    expect(ts(subject('Write', { file_path: '/proj/a.ts' }))).toBe(false)
    expect(ts(subject('MultiEdit', { file_path: '/proj/a.ts' }))).toBe(false)
    expect(ts(subject('Edit', { file_path: '/proj/a.tsx' }))).toBe(false)
    expect(compileIfRule('Write(*.ts)')(subject('Write', { file_path: '/proj/a.ts' }))).toBe(true)
    const secrets = compileIfRule('Read(./secrets/**)')
    expect(secrets(subject('Read', { file_path: '/proj/secrets/prod/key.pem' }))).toBe(true)
    expect(secrets(subject('Read', { file_path: '/proj/public/secrets/x' }))).toBe(true)
    expect(secrets(subject('Read', { file_path: '/elsewhere/secrets/x' }))).toBe(false)
    expect(secrets(subject('Read', { file_path: 'secrets/a' }))).toBe(true)
    expect(secrets(subject('Grep', { path: '/proj/secrets' }))).toBe(false)
  })

  test('path anchors: //absolute, /project-relative, a slash in the middle anchors, bare names at any depth', () => {
    expect(compileIfRule('Edit(//etc/**)')(subject('Edit', { file_path: '/etc/hosts' }))).toBe(true)
    expect(compileIfRule('Edit(/src/**/*.ts)')(subject('Edit', { file_path: '/proj/src/a/b.ts' }))).toBe(true)
    expect(compileIfRule('Edit(/src/**/*.ts)')(subject('Edit', { file_path: '/other/src/a.ts' }))).toBe(false)
    expect(compileIfRule('Edit(src/deep/**)')(subject('Edit', { file_path: '/proj/x/src/deep/a.ts' }))).toBe(false)
    expect(compileIfRule('Read(.env*)')(subject('Read', { file_path: '/proj/app/.env.local' }))).toBe(true)
    expect(compileIfRule('Read(.env*)')(subject('Read', { file_path: '/proj/app/env.ts' }))).toBe(false)
    expect(compileIfRule('Read(.env)')(subject('Read', { file_path: '/elsewhere/.env' }))).toBe(false)
    expect(compileIfRule('Read(*.env)')(subject('Read', { file_path: '/elsewhere/.env' }))).toBe(true)
    expect(compileIfRule('Read({a,b}.ts)')(subject('Read', { file_path: '/proj/a.ts' }))).toBe(false)
    expect(compileIfRule('Edit(node_modules)')(subject('Edit', { file_path: '/proj/node_modules/x/index.js' }))).toBe(true)
  })

  test('unsure answers run the hook: no path, a path that is not a string, an unknown specifier', () => {
    expect(compileIfRule('Edit(*.ts)')(subject('Edit', {}))).toBe(true)
    expect(compileIfRule('Edit(*.ts)')(subject('Edit', { file_path: 42 }))).toBe(true)
    expect(compileIfRule('Edit(*.ts)')(subject('apply_patch', { command: '*** Begin Patch' }))).toBe(false)
    expect(compileIfRule('Agent(Explore)')(subject('Agent', { subagent_type: 'x' }))).toBe(true)
    expect(compileIfRule('WebFetch(domain:example.com)')(subject('WebFetch', { url: 'https://api.example.com/x' }))).toBe(true)
    expect(compileIfRule('WebFetch(domain:example.com)')(subject('WebFetch', { url: 'https://example.org/' }))).toBe(false)
  })

  test('bare tool names and whole MCP servers', () => {
    expect(compileIfRule('Write')(subject('Write', {}))).toBe(true)
    expect(compileIfRule('Write')(subject('Edit', {}))).toBe(false)
    expect(compileIfRule('mcp__memory')(subject('mcp__memory__create', {}))).toBe(true)
    expect(compileIfRule('mcp__memory')(subject('mcp__memoryx__create', {}))).toBe(false)
  })

  test('text that is not a rule is a load error naming the field', () => {
    expect(() => compileIfRule('Bash(git *')).toThrow(/is not a permission rule/)
    const settings = { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', if: 'git push' }] }] } }
    expect(() => parseHookSettings(settings, '/s.json', 'Claude Code settings')).toThrow(
      /hooks\.PreToolUse\[0\]\.hooks\[0\]\.if "if" "git push" is not a permission rule/,
    )
  })
})

describe('selection', () => {
  const settings = parseHookSettings(
    {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'guard', timeout: 5 },
              { type: 'command', command: 'git-only', if: 'Bash(git *)' },
            ],
          },
          {
            matcher: '*',
            hooks: [
              { type: 'command', command: 'guard', timeout: 99 },
              { type: 'command', command: 'guard', shell: 'powershell' },
            ],
          },
        ],
      },
    },
    '/s.json',
    'Claude Code settings',
  )

  test("an identical handler in two matching groups runs once, with the first one's timeout; a different shell is another handler", () => {
    const selected = selectHooks(settings, 'PreToolUse', { toolName: 'Bash', toolInput: { command: 'ls' }, projectDir: '/p' })
    expect(selected.map((h) => [h.command, h.shell, h.timeoutMs])).toEqual([
      ['guard', 'bash', 5000],
      ['guard', 'powershell', undefined],
    ])
  })

  test('if filters before the hook is started', () => {
    const selected = selectHooks(settings, 'PreToolUse', { toolName: 'Bash', toolInput: { command: 'git push' }, projectDir: '/p' })
    expect(selected.map((h) => h.command)).toEqual(['guard', 'git-only', 'guard'])
  })
})

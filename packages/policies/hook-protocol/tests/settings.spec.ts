import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { cleanup } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { compileMatcher, loadHookSettings, mapToolCall, resolveToolNames } from '../src/index.js'
import { tempDir } from './helpers.js'

afterEach(cleanup)

describe('compileMatcher', () => {
  test('empty, missing and * match every tool', () => {
    for (const m of ['', '*', undefined, '  ']) expect(compileMatcher(m)('AnyTool')).toBe(true)
  })

  test('a plain name is exact, not a prefix or substring', () => {
    const write = compileMatcher('Write')
    expect(write('Write')).toBe(true)
    expect(write('WriteFile')).toBe(false)
    expect(write('NotebookWrite')).toBe(false)
  })

  test('A|B of plain names is an exact list', () => {
    const m = compileMatcher('Edit|Write | fs_read')
    expect(['Edit', 'Write', 'fs_read'].map(m)).toEqual([true, true, true])
    expect(['Read', 'Edits', ''].map(m)).toEqual([false, false, false])
  })

  test('anything else is a regex tested unanchored, as the originals test it', () => {
    const m = compileMatcher('^Notebook|__write$')
    expect(['NotebookEdit', 'mcp__github__write'].map(m)).toEqual([true, true])
    expect(['XNotebookEdit', 'mcp__github__write_file'].map(m)).toEqual([false, false])
    expect(compileMatcher('Edit$')('MultiEdit')).toBe(true)
  })

  test('an invalid regex throws at compile time', () => {
    expect(() => compileMatcher('Write(')).toThrow(/neither a tool name list nor a regex RE2 can run/)
  })

  test('property: an exact list matches exactly its members', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 5 }), name, (names, probe) => {
        expect(compileMatcher(names.join('|'))(probe)).toBe(names.includes(probe))
      }),
      { verbose: true },
    )
  })
})

describe('loadHookSettings', () => {
  async function settingsFile(content: unknown) {
    const file = join(await tempDir(), 'settings.json')
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
    return file
  }

  test('reads PreToolUse, PostToolUse and session groups, timeouts in seconds, and lists unknown events', async () => {
    const file = await settingsFile({
      permissions: { allow: [] },
      hooks: {
        PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: './guard.sh', timeout: 1.5 }] }],
        PostToolUse: [{ hooks: [{ type: 'command', command: 'fmt' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }],
        TeammateIdle: [{ hooks: [{ type: 'command', command: 'ping' }] }],
      },
    })
    const settings = loadHookSettings(file, 'Claude Code settings')
    expect(settings.PreToolUse[0]).toMatchObject({ matcher: 'Write|Edit', hooks: [{ command: './guard.sh', timeoutMs: 1500 }] })
    expect(settings.PreToolUse[0].matches('Edit')).toBe(true)
    expect(settings.PostToolUse[0].hooks).toMatchObject([{ command: 'fmt', shell: 'bash', async: false }])
    expect(settings.PostToolUse[0].matches('Anything')).toBe(true)
    expect(settings.Stop[0].hooks).toMatchObject([{ command: 'notify' }])
    expect(settings.ignoredEvents).toEqual(['TeammateIdle'])
  })

  test('a file without hooks has none', async () => {
    const settings = loadHookSettings(await settingsFile({ model: 'x' }), 'Claude Code settings')
    expect(settings).toMatchObject({ PreToolUse: [], PostToolUse: [] })
  })

  test('a missing file, bad JSON and bad shapes name the file and the field', async () => {
    const dir = await tempDir()
    expect(() => loadHookSettings(join(dir, 'nope.json'), 'Codex hooks')).toThrow(
      `cannot read the Codex hooks file ${join(dir, 'nope.json')}: it does not exist`,
    )
    const bad = await settingsFile('{ "hooks": ')
    expect(() => loadHookSettings(bad, 'Claude Code settings')).toThrow(new RegExp(`${bad} is not valid JSON`))
    const cases: [unknown, RegExp][] = [
      [[], /the top level must be a JSON object/],
      [{ hooks: [] }, /"hooks" must be an object/],
      [{ hooks: { PreToolUse: {} } }, /hooks\.PreToolUse must be an array/],
      [{ hooks: { PreToolUse: [{ matcher: 'Write(', hooks: [] }] } }, /hooks\.PreToolUse\[0\]\.matcher matcher "Write\(" is neither/],
      [{ hooks: { PreToolUse: [{ matcher: 3, hooks: [] }] } }, /hooks\.PreToolUse\[0\]\.matcher must be a string/],
      [{ hooks: { PreToolUse: [{ hooks: {} }] } }, /hooks\.PreToolUse\[0\]\.hooks must be an array/],
      [{ hooks: { PostToolUse: [{ hooks: [{ type: 'prompt', prompt: 'x' }] }] } }, /hooks\.PostToolUse\[0\]\.hooks\[0\]\.type is "prompt"; only "command"/],
      [{ hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.command must be a non-empty string/],
      [{ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] } }, /timeout must be a positive number of seconds \(got -1\)/],
    ]
    for (const [content, message] of cases) {
      const file = await settingsFile(content)
      expect(() => loadHookSettings(file, 'Claude Code settings'), JSON.stringify(content)).toThrow(message)
      expect(() => loadHookSettings(file, 'Claude Code settings')).toThrow(file)
    }
  })
})

describe('tool name mapping', () => {
  test('the defaults map our fs tools to Read / Write / Edit with absolute file_path', () => {
    const names = resolveToolNames()
    expect(mapToolCall('fs_write', { path: 'src/a.ts', content: 'x' }, names.get('fs_write'), '/proj')).toEqual({
      toolName: 'Write',
      toolInput: { file_path: '/proj/src/a.ts', content: 'x' },
    })
    expect(mapToolCall('fs_edit', { path: '/abs/a.ts', old: 'a', new: 'b', replaceAll: true }, names.get('fs_edit'), '/proj')).toEqual({
      toolName: 'Edit',
      toolInput: { file_path: '/abs/a.ts', old_string: 'a', new_string: 'b', replace_all: true },
    })
    expect(mapToolCall('fs_read', { path: 'a', limit: 10 }, names.get('fs_read'), '/proj')).toEqual({
      toolName: 'Read',
      toolInput: { file_path: '/proj/a', limit: 10 },
    })
  })

  test('unmapped tools and unlisted arguments keep their own names', () => {
    const names = resolveToolNames({ fs_read: false, grep: { name: 'Grep', arguments: { pattern: 'query' } } })
    expect(mapToolCall('fs_read', { path: 'a' }, names.get('fs_read'), '/p')).toEqual({ toolName: 'fs_read', toolInput: { path: 'a' } })
    expect(mapToolCall('grep', { query: 'x', glob: '*.ts' }, names.get('grep'), '/p')).toEqual({ toolName: 'Grep', toolInput: { pattern: 'x', glob: '*.ts' } })
    expect(mapToolCall('jobs_list', { all: true }, names.get('jobs_list'), '/p')).toEqual({ toolName: 'jobs_list', toolInput: { all: true } })
  })

  test('keys like __proto__ and constructor reach the hook as the plain data they are in the arguments', () => {
    const args = JSON.parse('{"path":"a","content":"x","__proto__":{"path":"package.json"},"constructor":"c","toString":1}')
    const { toolInput } = mapToolCall('fs_write', args, resolveToolNames().get('fs_write'), '/p')
    expect(JSON.parse(JSON.stringify(toolInput))).toEqual(
      JSON.parse('{"file_path":"/p/a","content":"x","__proto__":{"path":"package.json"},"constructor":"c","toString":1}'),
    )
    expect(Object.getPrototypeOf(toolInput)).toBe(Object.prototype)
  })

  test('an argument a mapping renames is read only from the arguments themselves, never from their prototype', () => {
    const args = Object.assign(Object.create({ path: 'package.json' }), { content: 'x' })
    const { toolInput } = mapToolCall('fs_write', args, resolveToolNames().get('fs_write'), '/p')
    expect(JSON.parse(JSON.stringify(toolInput))).toEqual({ content: 'x' })
  })
})

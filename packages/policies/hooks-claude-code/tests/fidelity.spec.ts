import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cleanup } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { on, project, py } from './payload-setup.js'
import { fixtures } from './setup.js'

afterEach(cleanup)

// The calls the measured Claude Code session made, as dshkit calls, each with the fixture payload it must match.
const SCRIPT: [string, Record<string, unknown>, string[]][] = [
  ['shell', { command: 'echo hi; echo warn >&2', description: 'greets' }, ['PreToolUse Bash', 'PostToolUse Bash']],
  ['shell', { command: 'echo oops >&2; echo out; exit 3' }, ['PostToolUseFailure Bash']],
  ['fs_write', { path: 'a.txt', content: 'one\ntwo\nthree\n' }, ['PreToolUse Write', 'PostToolUse Write create']],
  ['fs_read', { path: 'a.txt' }, ['PreToolUse Read', 'PostToolUse Read text']],
  ['fs_edit', { path: 'a.txt', old: 'two', new: 'TWO' }, ['PreToolUse Edit', 'PostToolUse Edit']],
  ['fs_write', { path: 'a.txt', content: 'new\n' }, ['PostToolUse Write update']],
  ['fs_read', { path: 'missing.txt' }, ['PostToolUseFailure Read']],
]

// Where dshkit differs on purpose or cannot know: key → why. Everything else must be equal, key by key.
const EXPECTED_DIFFERENCES: Record<string, string> = {
  prompt_id: 'this script submits no prompt (lifecycle.spec.ts checks prompt_id after a UserPromptSubmit)',
  session_id: 'the session is dshkit’s',
  transcript_path: 'the session log is dshkit’s',
  cwd: 'the project is a temp folder',
  permission_mode: 'follows dshkit’s approval setup',
  tool_use_id: 'dshkit’s callId',
  duration_ms: 'a measured time',
  'PostToolUseFailure Bash.error': 'stdout and stderr are two streams in dshkit: their interleaving is lost (stdout first)',
  'PostToolUseFailure Read.error': 'fs-local’s message, not Claude Code’s',
}

test('every payload field of the measured Claude Code 2.1.197 session is sent, with the same value where dshkit can know it', async () => {
  const measured = JSON.parse(await readFile(join(fixtures, 'claude-code-2.1.197-payloads.json'), 'utf8')).payloads
  const events = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']
  const p = await project(Object.fromEntries(events.map((event) => [event, [on('*', py('record.py', '.'))]])))
  const mismatches: string[] = []
  for (const [tool, args, labels] of SCRIPT) {
    await p.call(tool, args)
    for (const label of labels) {
      const [event, name] = label.split(' ')
      const expected = JSON.parse(JSON.stringify(measured[label]).replaceAll('/project', p.dir))
      const seen = await p.seen(event, name)
      for (const key of new Set([...Object.keys(expected), ...Object.keys(seen)])) {
        if (EXPECTED_DIFFERENCES[key] || EXPECTED_DIFFERENCES[`${event} ${name}.${key}`]) {
          if (key !== 'prompt_id' && !(key in seen)) mismatches.push(`${label}: ${key} missing`)
          continue
        }
        if (JSON.stringify(seen[key]) !== JSON.stringify(expected[key]))
          mismatches.push(`${label}: ${key} is ${JSON.stringify(seen[key])}, Claude Code sends ${JSON.stringify(expected[key])}`)
      }
    }
  }
  expect(mismatches).toEqual([])
})

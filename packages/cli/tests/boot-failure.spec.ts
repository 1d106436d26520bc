import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

let dir: string
beforeEach(async () => {
  dir = await tempDir('dshkit-boot-')
  await writeFile(join(dir, 'target.txt'), 'original\n')
  await writeFile(
    join(dir, 'calls.jsonl'),
    ['{"name": "fs_write", "arguments": {"path": "target.txt", "content": "overwritten\\n"}}', '{"name": "fs_list", "arguments": {"path": "."}}'].join('\n') +
      '\n',
  )
})
afterEach(cleanup)

/** Runs the calls with dsh-base plus `extra` cordis.yml lines; asserts nothing ran and returns the one stderr line. */
async function runRefused(...extra: string[]) {
  const config = join(dir, 'cordis.yml')
  await writeFile(config, ['plugins:', "  - name: '@dshkit/dsh-base'", ...extra].join('\n'))
  const { code, stdout, stderr } = await dshkit(['run', join(dir, 'calls.jsonl'), '--config', config, '--root', dir])
  expect(code).toBe(1)
  expect(stdout).toBe('')
  expect(await readFile(join(dir, 'target.txt'), 'utf8')).toBe('original\n')
  expect(stderr).not.toMatch(/\n\s+at /)
  const lines = stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  return lines[0]
}

test('a hooks settings file that is missing: exit 1, no call runs, one line naming the plugin and the file', async () => {
  const line = await runRefused(
    "  - name: '@dshkit/hooks-claude-code'",
    `    config: { configPath: no-such-settings.json, projectDir: ${JSON.stringify(dir)} }`,
  )
  expect(line).toMatch(
    /^dshkit: .*cordis\.yml entry #2 \(@dshkit\/hooks-claude-code\): failed to start: cannot read the Claude Code settings file .*no-such-settings\.json/,
  )
})

test('a hooks matcher that is not a valid regex: exit 1, no call runs, one line naming the matcher', async () => {
  await writeFile(
    join(dir, 'hooks.json'),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'fs_(write', hooks: [{ type: 'command', command: 'exit 2' }] }] },
    }),
  )
  const line = await runRefused("  - name: '@dshkit/hooks-codex'", `    config: { configPath: hooks.json, projectDir: ${JSON.stringify(dir)} }`)
  expect(line).toMatch(/^dshkit: .*entry #2 \(@dshkit\/hooks-codex\): failed to start: .*matcher/)
})

test('a misspelled cordis.yml entry key: exit 1, no call runs, one line with the key it meant', async () => {
  const line = await runRefused("  - name: '@dshkit/permission-policy'", '    confg: { default: deny }')
  expect(line).toMatch(/^dshkit: .*cordis\.yml entry #2 \(@dshkit\/permission-policy\): confg: unknown key; did you mean "config"\?$/)
})

// A rule that can never match used to start without a word, and the file it was meant to protect was overwritten.
test.each([
  [
    "  - name: '@dshkit/permission-policy'",
    '    config: { rules: [{ tool: fs_wrte, decision: deny }] }',
    /no tool "fs_wrte" is registered; did you mean "fs_write"\?/,
  ],
  [
    "  - name: '@dshkit/permission-policy'",
    '    config: { rules: [{ tool: Fs_Write, decision: deny }] }',
    /did you mean "fs_write"\? \(tool names are case-sensitive\)/,
  ],
  [
    '    config: { permission-policy: { rules: [{ tool: fs_write, when: { pth: "**" }, decision: deny }] } }',
    '',
    /"pth", which fs_write does not declare; did you mean "path"\?/,
  ],
  [
    '    config: { permission-policy: { rules: [{ tool: shell, when: { comand: "*" }, decision: deny }] } }',
    '',
    /"comand", which shell does not declare; did you mean "command"\?/,
  ],
])('a permission rule that can never match: exit 1, no call runs, one line with what it meant (%#)', async (first, second, meant) => {
  const line = await runRefused(first, ...(second ? [second] : []))
  expect(line).toMatch(/^dshkit: .*cordis\.yml.*(permission-policy.*)?failed to start: rule #1 \(deny /)
  expect(line).toMatch(meant)
})

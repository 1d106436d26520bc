import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

// A Claude Code setup's PostToolUse formatter on Bash, under dsh-base's default shell (sandboxed, changes as a
// transaction): the command's changes have landed when the hook runs, so the formatter sees and fixes them.
it('a PostToolUse formatter on Bash acts on the files a sandboxed shell call changed', { timeout: 60_000 }, async () => {
  const dir = await tempDir('dshkit-run-formatter-')
  const root = join(dir, 'ws')
  await mkdir(join(root, '.claude'), { recursive: true })
  // "Formats" (upper-cases) every .txt file the call left in the project.
  const formatter = `cd "$CLAUDE_PROJECT_DIR" && for f in *.txt; do [ -f "$f" ] && tr a-z A-Z < "$f" > "$f.fmt" && mv "$f.fmt" "$f"; done; echo "formatted" >> .claude/hook.log`
  await writeFile(
    join(root, '.claude/settings.json'),
    JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: formatter }] }] } }),
  )
  const config = join(dir, 'cordis.yml')
  await writeFile(
    config,
    `plugins:\n  - name: '@dshkit/dsh-base'\n  - name: '@dshkit/hooks-claude-code'\n    config:\n      configPath: .claude/settings.json\n      projectDir: ${JSON.stringify(root)}\n`,
  )
  const calls = join(dir, 'calls.jsonl')
  await writeFile(
    calls,
    `${JSON.stringify({ callId: 'c1', name: 'shell', arguments: { command: "printf 'hello\\n' > a.txt && mkdir -p sub && printf 'x' > sub/b.md" } })}\n`,
  )
  const { code, stdout, stderr } = await dshkit(['run', calls, '--config', config, '--root', root, '--json'])
  expect(code, stderr).toBe(0)
  const result = JSON.parse(stdout.trim().split('\n')[0])
  expect(result).toMatchObject({
    isError: false,
    value: { sandboxed: true, changes: { applied: expect.arrayContaining([expect.objectContaining({ path: join(root, 'a.txt') })]) } },
  })
  expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('HELLO\n')
  expect(await readFile(join(root, 'sub/b.md'), 'utf8')).toBe('x')
  expect(await readFile(join(root, '.claude/hook.log'), 'utf8')).toBe('formatted\n')
})

import { mkdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

const jsonl = (items: object[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n'

/** A workspace whose PreToolUse hook answers `continue: false` for writes to two.txt (a kill switch). */
async function workspace() {
  const dir = await tempDir('dshkit-run-stop-')
  const root = join(dir, 'ws')
  await mkdir(join(root, '.claude'), { recursive: true })
  const hook = {
    type: 'command',
    command: `grep -q two.txt && echo '{"continue":false,"stopReason":"kill switch"}' || true`,
  }
  await writeFile(join(root, '.claude/settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Write', hooks: [hook] }] } }))
  const config = join(dir, 'cordis.yml')
  await writeFile(
    config,
    [
      'plugins:',
      "  - name: '@dshkit/dsh-base'",
      "  - name: '@dshkit/hooks-claude-code'",
      '    config:',
      '      configPath: .claude/settings.json',
      `      projectDir: ${JSON.stringify(root)}`,
    ].join('\n') + '\n',
  )
  const write = (callId: string, path: string) => ({ callId, name: 'fs_write', arguments: { path, content: 'x' } })
  const calls = join(dir, 'calls.jsonl')
  // The third line references the first, so it is a later batch: a stop must reach across batches too.
  await writeFile(
    calls,
    jsonl([
      write('one', 'one.txt'),
      write('two', 'two.txt'),
      write('three', 'three.txt'),
      { ...write('four', 'four.txt'), arguments: { path: 'four.txt', content: { $from: 'one', path: 'path' } } },
    ]),
  )
  return { root, config, calls }
}

it('a hook that answers continue: false stops dshkit run: no later line runs, the summary names it, exit 3', { timeout: 40_000 }, async () => {
  const { root, config, calls } = await workspace()
  const { code, stdout, stderr } = await dshkit(['run', calls, '--config', config, '--root', root])
  expect(code, stderr).toBe(3)
  await expect(stat(join(root, 'one.txt'))).resolves.toBeTruthy()
  for (const file of ['two.txt', 'three.txt', 'four.txt']) await expect(stat(join(root, file))).rejects.toThrow(/ENOENT/)
  expect(stdout).toContain('fs_write was not run: hooks-claude-code')
  expect(stderr).toMatch(/stopped by hooks-claude-code: .*: kill switch; 1 later call line\(s\) not run/)
})

it('--json ends with a stop line', { timeout: 40_000 }, async () => {
  const { root, config, calls } = await workspace()
  const { code, stdout } = await dshkit(['run', calls, '--config', config, '--root', root, '--json'])
  expect(code).toBe(3)
  expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'stop', reason: 'kill switch', notRun: 1 })
})

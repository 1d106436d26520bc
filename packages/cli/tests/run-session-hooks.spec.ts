import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

/** A workspace whose SessionStart hook gives context and SessionEnd hook writes a report, as real setups do. */
async function workspace(sessionStart: string) {
  const dir = await tempDir('dshkit-run-session-')
  const root = join(dir, 'ws')
  await mkdir(join(root, '.claude'), { recursive: true })
  const on = (command: string) => [{ hooks: [{ type: 'command', command }] }]
  const hooks = { SessionStart: on(sessionStart), SessionEnd: on(`cat > "$CLAUDE_PROJECT_DIR/ended.json"`) }
  await writeFile(join(root, '.claude/settings.json'), JSON.stringify({ hooks }))
  const config = join(dir, 'cordis.yml')
  const plugins = [
    'plugins:',
    "  - name: '@dshkit/dsh-base'",
    "  - name: '@dshkit/hooks-claude-code'",
    '    config:',
    '      configPath: .claude/settings.json',
    `      projectDir: ${JSON.stringify(root)}`,
  ]
  await writeFile(config, `${plugins.join('\n')}\n`)
  const calls = join(dir, 'calls.jsonl')
  await writeFile(calls, `${JSON.stringify({ callId: 'one', name: 'fs_write', arguments: { path: 'one.txt', content: 'x' } })}\n`)
  return { root, config, calls }
}

it('dshkit run fires SessionStart (its context is shown) before the first call and SessionEnd after the last', { timeout: 40_000 }, async () => {
  const { root, config, calls } = await workspace(`echo 'remember: tests are slow'`)
  const { code, stdout, stderr } = await dshkit(['run', calls, '--config', config, '--root', root, '--json'])
  expect(code, stderr).toBe(0)
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(lines[0]).toMatchObject({ type: 'context', content: [{ type: 'text', text: 'remember: tests are slow' }] })
  expect(lines[1]).toMatchObject({ callId: 'one' })
  expect(JSON.parse(await readFile(join(root, 'ended.json'), 'utf8'))).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other' })
})

it('a SessionStart hook that answers continue: false runs no call line (exit 3)', { timeout: 40_000 }, async () => {
  const { root, config, calls } = await workspace(`echo '{"continue":false,"stopReason":"maintenance window"}'`)
  const { code, stderr } = await dshkit(['run', calls, '--config', config, '--root', root])
  expect(code).toBe(3)
  expect(stderr).toMatch(/stopped by hooks-claude-code: .*: maintenance window; 1 later call line\(s\) not run/)
  await expect(readFile(join(root, 'one.txt'))).rejects.toThrow(/ENOENT/)
})

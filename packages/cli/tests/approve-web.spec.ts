import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup, eventually, tempDir } from '@dshkit/testing'
import { bin, dshkit } from './run-cli.js'

afterEach(cleanup)

describe('dshkit run --approve web', () => {
  test('prints the page URL with its token; an answer on the page lets the call run', async () => {
    const root = await tempDir('dshkit-approve-web-')
    await writeFile(join(root, 'package.json'), '{}')
    const config = join(root, 'cordis.yml')
    await writeFile(
      config,
      "plugins:\n  - name: '@dshkit/dsh-base'\n    config:\n      permission-policy:\n        rules: [{ tool: fs_write, decision: ask, reason: writes need a yes }]\n",
    )
    const calls = join(root, 'calls.jsonl')
    await writeFile(calls, '{"callId": "w", "name": "fs_write", "arguments": {"path": "package.json", "content": "{\\"x\\":1}"}}\n')
    const child = spawn(process.execPath, [bin, 'run', calls, '--config', config, '--root', root, '--approve', 'web'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
    const url = await eventually(() => /dshkit: approve tool calls at (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(stderr)![1], { timeoutMs: 20_000 })
    const { origin } = new URL(url)
    const token = new URL(url).searchParams.get('token')!
    expect((await fetch(`${origin}/api/state`)).status).toBe(401)
    const ask = await eventually(
      async () => {
        const state = (await (await fetch(`${origin}/api/state`, { headers: { 'x-approval-token': token } })).json()) as any
        expect(state.pending).toHaveLength(1)
        return state.pending[0]
      },
      { timeoutMs: 20_000 },
    )
    expect(ask).toMatchObject({ tool: 'fs_write', source: 'permission-policy', callId: 'w' })
    const answered = await fetch(`${origin}/api/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-approval-token': token, origin },
      body: JSON.stringify({ requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' }),
    })
    expect(answered.status).toBe(200)
    expect(await closed).toBe(0)
    expect(stdout).toMatch(/✓ .*fs_write \[w\] ok/)
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe('{"x":1}')
    // Printed once, by the command (the plugin's own line is off).
    expect(stderr.match(/approve tool calls at/g)).toHaveLength(1)
  }, 60_000)

  test('--approve takes only "web"', async () => {
    const { code, stderr } = await dshkit(['run', '--approve', 'phone'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/--approve takes "web".*got "phone"/)
  })
})

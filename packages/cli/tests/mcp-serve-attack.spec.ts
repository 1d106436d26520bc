import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { afterEach, expect, test, vi } from 'vitest'
import { cleanup, eventually, exited, onCleanup, psMatching, tempDir, trackSleepers } from '@dshkit/testing'
import { bin } from './run-cli.js'

vi.setConfig({ testTimeout: 45_000 })
afterEach(cleanup)
const sleepers = trackSleepers()
afterEach(() => void sleepers.reap())

/** `dshkit mcp serve` on raw stdio lines, so a test can send what an SDK client never would. */
async function rawServe() {
  const root = await tempDir('dshkit-mcp-attack-')
  const log = `${root}/../${root.split('/').pop()}-session.jsonl`
  const child = spawn(process.execPath, [bin, 'mcp', 'serve', '--root', root, '--log', log], { stdio: ['pipe', 'pipe', 'pipe'] })
  onCleanup(() => void child.kill('SIGKILL'))
  let stdout = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  const lines = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n')
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await eventually(() => expect(lines()).toHaveLength(1), { timeoutMs: 15_000 })
  const events = async () =>
    (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  return { child, lines, send, events }
}

const shell = (id: number, command: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'shell', arguments: { command } } })

test("SIGTERM mid-call: the command is killed, the call's result is in the session log, exit 0", async () => {
  const { child, send, events } = await rawServe()
  const duration = sleepers.next()
  send(shell(1, `sleep ${duration}`))
  await eventually(() => expect(psMatching(`sleep ${duration}`)).not.toEqual([]), { timeoutMs: 10_000 })
  child.kill('SIGTERM')
  expect(await exited(child)).toBe(0)
  expect(psMatching(`sleep ${duration}`)).toEqual([])
  const log = await events()
  const call = log.find((e) => e.type === 'tool/call' && e.name === 'shell')
  expect(log.find((e) => e.type === 'tool/result' && e.callId === call.callId)).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
})

test("a second call reusing the id of a running one is refused; stdin closing still kills the first call's command", async () => {
  const { child, lines, send } = await rawServe()
  const first = sleepers.next()
  const second = sleepers.next()
  send(shell(1, `sleep ${first}`))
  await eventually(() => expect(psMatching(`sleep ${first}`)).not.toEqual([]), { timeoutMs: 10_000 })
  send(shell(1, `sleep ${second}`))
  await eventually(() => expect(lines()).toHaveLength(2), { timeoutMs: 10_000 })
  expect(lines()[1]).toMatchObject({ id: 1, error: { code: -32600 } })
  expect(psMatching(`sleep ${second}`)).toEqual([])
  child.stdin.end()
  expect(await exited(child)).toBe(0)
  expect(psMatching(`sleep ${first}`)).toEqual([])
})

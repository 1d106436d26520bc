import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { cleanup, eventually, exited, onCleanup, psMatching, tempDir, trackSleepers } from '@dshkit/testing'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { bin, dshkit } from './run-cli.js'

// Each test boots dsh-base in a child process (several for the usage test): slow on a busy machine.
vi.setConfig({ testTimeout: 45_000 })
afterEach(cleanup)
const sleepers = trackSleepers()
afterEach(() => void sleepers.reap())

const CONFIG = `plugins:
  - name: '@dshkit/dsh-base'
    config:
      permission-policy:
        rules:
          - { tool: fs_read, when: { path: '**/secret*' }, decision: deny, reason: secrets stay put }
          - { tool: fs_write, when: { path: '**/deploy*' }, decision: ask, reason: deploy files need a yes }
`

/** `dshkit mcp serve` as a real child process, with the real SDK client on its stdio. */
async function serve(options: { answer?: (message: string) => ElicitResult; config?: string } = {}) {
  const root = await tempDir('dshkit-mcp-root-')
  const config = join(root, '..', `${root.split('/').pop()}-cordis.yml`)
  await writeFile(config, options.config ?? CONFIG)
  const log = join(root, '..', `${root.split('/').pop()}-session.jsonl`)
  onCleanup(async () => {
    const { rm } = await import('node:fs/promises')
    await rm(config, { force: true })
    await rm(log, { force: true })
  })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', 'serve', '--config', config, '--root', root, '--log', log],
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk) => (stderr += chunk))
  const client = new Client({ name: 'cli-test', version: '1.0.0' }, { capabilities: options.answer ? { elicitation: { form: {} } } : {} })
  const questions: string[] = []
  if (options.answer) {
    const answer = options.answer
    client.setRequestHandler(ElicitRequestSchema, async (request) => (questions.push(request.params.message), answer(request.params.message)))
  }
  await client.connect(transport)
  onCleanup(() => client.close())
  return { client, root, log, questions, stderr: () => stderr, pid: transport.pid! }
}

const text = (result: any) => result.content.map((b: any) => b.text).join('\n')

test('a real `dshkit mcp serve`: tools with hints, an allowed call, a denied one, all in the durable session log', async () => {
  const { client, root, log, pid } = await serve()
  const { tools } = await client.listTools()
  const names = tools.map((t) => t.name)
  expect(names).toEqual(expect.arrayContaining(['fs_read', 'fs_write', 'fs_edit', 'fs_list', 'shell', 'spill_read', 'job_output']))
  expect(tools.find((t) => t.name === 'fs_list')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
  expect(tools.find((t) => t.name === 'shell')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false })
  await writeFile(join(root, 'notes.txt'), 'hello from the workspace\n')
  await writeFile(join(root, 'secret.txt'), 'hunter2\n')
  const read = await client.callTool({ name: 'fs_read', arguments: { path: 'notes.txt' } })
  expect(read.isError).toBe(false)
  expect(text(read)).toContain('hello from the workspace')
  const denied = await client.callTool({ name: 'fs_read', arguments: { path: 'secret.txt' } })
  expect(denied.isError).toBe(true)
  expect(text(denied)).toMatch(/secrets stay put/)
  expect(text(denied)).not.toContain('hunter2')
  const outside = await client.callTool({ name: 'fs_read', arguments: { path: '/etc/hostname' } })
  expect(outside.isError).toBe(true)
  await client.close()
  expect(await eventuallyExited(pid)).toBe(true)
  const events = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(events.filter((e) => e.type === 'tool/call').map((e) => e.name)).toEqual(['fs_read', 'fs_read', 'fs_read'])
  expect(events.filter((e) => e.type === 'tool/result').map((e) => e.isError)).toEqual([false, true, true])
})

test('an ask goes to the client as an elicitation: accepted, the write happens; declined, it does not', async () => {
  let reply: ElicitResult = { action: 'accept', content: { allow: true } }
  const { client, root, questions } = await serve({ answer: () => reply })
  const yes = await client.callTool({ name: 'fs_write', arguments: { path: 'deploy.txt', content: 'v1' } })
  expect(yes.isError).toBe(false)
  expect(await readFile(join(root, 'deploy.txt'), 'utf8')).toBe('v1')
  expect(questions[0]).toMatch(
    /^dshkit: allow fs_write\?\nasked by permission-policy: .*deploy files need a yes\narguments \{"path":"deploy.txt","content":"v1"\}\nsha256 [0-9a-f]{16}$/,
  )
  reply = { action: 'decline' }
  const no = await client.callTool({ name: 'fs_write', arguments: { path: 'deploy.txt', content: 'v2' } })
  expect(no.isError).toBe(true)
  expect(text(no)).toMatch(/declined/)
  expect(await readFile(join(root, 'deploy.txt'), 'utf8')).toBe('v1')
})

test('without elicitation the configured responder answers: headless (stdin is the protocol) denies the ask', async () => {
  const { client, root } = await serve()
  const result = await client.callTool({ name: 'fs_write', arguments: { path: 'deploy.txt', content: 'v1' } })
  expect(result.isError).toBe(true)
  expect(text(result)).toMatch(/no one can approve here/)
  await expect(readFile(join(root, 'deploy.txt'))).rejects.toThrow()
})

test('a large shell output is spilled with a preview; spill_read pages through it', async () => {
  const { client } = await serve()
  const big = await client.callTool({ name: 'shell', arguments: { command: 'seq 1 40000; echo LAST-LINE' } })
  expect(big.isError).toBe(false)
  const id = (big._meta as any)['dshkit/result'].meta.spill.id
  expect(text(big).length).toBeLessThan(60_000)
  expect(text(big)).toContain(id)
  const page = await client.callTool({ name: 'spill_read', arguments: { id, grep: 'LAST-LINE' } })
  expect(text(page)).toContain('LAST-LINE')
})

test("the client cancelling a long shell call aborts it: the command's process is gone after", async () => {
  const { client } = await serve()
  const duration = sleepers.next()
  const controller = new AbortController()
  const call = client.callTool({ name: 'shell', arguments: { command: `sleep ${duration}` } }, undefined, { signal: controller.signal })
  await eventually(() => expect(psMatching(`sleep ${duration}`)).not.toEqual([]), { timeoutMs: 10_000 })
  controller.abort('the user pressed Esc')
  await expect(call).rejects.toThrow(/Esc|abort/i)
  await eventually(() => expect(psMatching(`sleep ${duration}`)).toEqual([]), { timeoutMs: 10_000 })
  expect(text(await client.callTool({ name: 'fs_list', arguments: { path: '.' } }))).toBeDefined()
})

test('the client going away (stdin closed) mid-call kills the command and ends the server', async () => {
  const { client, pid } = await serve()
  const duration = sleepers.next()
  void client.callTool({ name: 'shell', arguments: { command: `sleep ${duration}` } }).catch(() => {})
  await eventually(() => expect(psMatching(`sleep ${duration}`)).not.toEqual([]), { timeoutMs: 10_000 })
  await client.close()
  await eventually(() => expect(psMatching(`sleep ${duration}`)).toEqual([]), { timeoutMs: 10_000 })
  expect(await eventuallyExited(pid)).toBe(true)
})

test('raw stdio: garbage lines get JSON-RPC errors, stdout carries only JSON-RPC, and the server keeps serving', async () => {
  const root = await tempDir('dshkit-mcp-raw-')
  const child = spawn(process.execPath, [bin, 'mcp', 'serve', '--root', root], { stdio: ['pipe', 'pipe', 'pipe'] })
  onCleanup(() => void child.kill('SIGKILL'))
  let stdout = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  const lines = () => stdout.split('\n').filter(Boolean)
  const send = (line: string) => child.stdin.write(line + '\n')
  send('this is not json')
  send('{"hello": "world"}')
  send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  )
  await eventually(() => expect(lines().length).toBeGreaterThanOrEqual(3), { timeoutMs: 10_000 })
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {} } }))
  send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fs_list","arguments":{"path":".","__proto__":{"x":1}}}}')
  send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'no/such/method' }))
  send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'fs_list', arguments: { path: '.' } } }))
  await eventually(() => expect(lines().length).toBe(7), { timeoutMs: 10_000 })
  const messages = lines().map((line) => JSON.parse(line))
  for (const message of messages) expect(message.jsonrpc).toBe('2.0')
  expect(messages[0]).toMatchObject({ id: null, error: { code: -32700 } })
  expect(messages[1]).toMatchObject({ id: null, error: { code: -32600 } })
  const byId = new Map(messages.map((m) => [m.id, m]))
  expect(byId.get(1).result.serverInfo.name).toBe('dshkit')
  expect(byId.get(2).result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/unknown tool "nope"/) }] })
  expect(byId.get(3).result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/__proto__/) }] })
  expect(byId.get(4).error.code).toBe(-32601)
  expect(byId.get(5).result.isError).toBe(false)
  child.stdin.end()
  expect(await exited(child)).toBe(0)
})

test('--http: Streamable HTTP on loopback with the token from DSHKIT_MCP_TOKEN; a wrong token is refused; SIGTERM stops it cleanly', async () => {
  const root = await tempDir('dshkit-mcp-http-')
  const token = 'a'.repeat(20) + Math.random().toString(36).slice(2).padEnd(20, 'x')
  const child = spawn(process.execPath, [bin, 'mcp', 'serve', '--http', '0', '--root', root], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DSHKIT_MCP_TOKEN: token },
  })
  onCleanup(() => void child.kill('SIGKILL'))
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  await eventually(() => expect(stderr).toMatch(/at http:\/\/127\.0\.0\.1:\d+\/mcp[\s\S]*Authorization: Bearer/), { timeoutMs: 10_000 })
  const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)![1]
  expect(stderr).toContain(`Authorization: Bearer ${token}`)
  const refused = await fetch(url, {
    method: 'POST',
    headers: { authorization: 'Bearer wrong', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  })
  expect(refused.status).toBe(401)
  const client = new Client({ name: 'http-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  expect(text(await client.callTool({ name: 'fs_list', arguments: { path: '.' } }))).toBeDefined()
  await client.close()
  child.kill('SIGTERM')
  expect(await exited(child)).toBe(0)
})

test('a plugin that writes to stdout (console.log) during a call cannot corrupt the protocol: its text goes to stderr', async () => {
  const root = await tempDir('dshkit-mcp-noisy-')
  await writeFile(
    join(root, 'noisy.mjs'),
    `
const anything = { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) } }
export const name = 'noisy'
export const inject = ['tools']
export const apply = (ctx) => {
  console.log('noisy plugin booting')
  ctx.tools.register({ name: 'noisy', description: 'prints', parameters: anything, execute: () => { console.log('NOISE {"jsonrpc":"2.0"'); process.stdout.write('more noise\\n'); return 'quiet result' } })
}
`,
  )
  const { client, stderr } = await serve({ config: `plugins:\n  - name: '@dshkit/dsh-base'\n  - name: ${join(root, 'noisy.mjs')}\n` })
  const result = await client.callTool({ name: 'noisy', arguments: {} })
  expect(text(result)).toBe('quiet result')
  expect(text(await client.callTool({ name: 'noisy', arguments: {} }))).toBe('quiet result')
  await eventually(() => expect(stderr()).toContain('NOISE {"jsonrpc":"2.0"'))
  expect(stderr()).toContain('noisy plugin booting')
  expect(stderr()).toContain('more noise')
})

test('a config that does not boot is one line on stderr, exit 1, nothing on stdout', async () => {
  const root = await tempDir('dshkit-mcp-bad-')
  const config = join(root, 'cordis.yml')
  await writeFile(config, "plugins:\n  - name: '@dshkit/dsh-base'\n    config:\n      permision-policy: {}\n")
  const run = await dshkit(['mcp', 'serve', '--config', config, '--root', root])
  expect(run.code).toBe(1)
  expect(run.stdout).toBe('')
  expect(run.stderr).toMatch(/permision-policy.*did you mean "permission-policy"/)
})

test('usage mistakes: a bad --http port, a missing subcommand, and a tty responder on stdio are one-line errors', async () => {
  const badPort = await dshkit(['mcp', 'serve', '--http', 'eighty'])
  expect(badPort.code).toBe(2)
  expect(badPort.stderr).toMatch(/--http takes a port number 0-65535/)
  const noSub = await dshkit(['mcp'])
  expect(noSub.code).toBe(2)
  expect(noSub.stderr).toMatch(/mcp takes one subcommand: serve/)
  const root = await tempDir('dshkit-mcp-tty-')
  const config = join(root, 'cordis.yml')
  await writeFile(config, "plugins:\n  - name: '@dshkit/dsh-base'\n    config:\n      user-approval: { responder: tty }\n")
  const tty = await dshkit(['mcp', 'serve', '--config', config, '--root', root])
  expect(tty.code).toBe(1)
  expect(tty.stderr).toMatch(/stdin and stdout carry MCP/)
  expect(tty.stdout).toBe('')
}, 60_000)

async function eventuallyExited(pid: number): Promise<boolean> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0)
    } catch {
      return true
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

test('`dshkit mcp serve` fires SessionStart before serving and SessionEnd when the client goes', async () => {
  const project = await tempDir('dshkit-mcp-hooks-')
  const on = (command: string) => [{ hooks: [{ type: 'command', command }] }]
  const hooks = { SessionStart: on('cat > "$CLAUDE_PROJECT_DIR/started.json"; echo branch main'), SessionEnd: on('cat > "$CLAUDE_PROJECT_DIR/ended.json"') }
  await writeFile(join(project, 'settings.json'), JSON.stringify({ hooks }))
  const config = `${CONFIG}  - name: '@dshkit/hooks-claude-code'\n    config:\n      configPath: ${JSON.stringify(join(project, 'settings.json'))}\n      projectDir: ${JSON.stringify(project)}\n`
  const { client, pid, stderr } = await serve({ config })
  expect(JSON.parse(await readFile(join(project, 'started.json'), 'utf8'))).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' })
  expect(stderr()).toMatch(/context from hooks-claude-code: .*: branch main/)
  await client.close()
  expect(await eventuallyExited(pid)).toBe(true)
  expect(JSON.parse(await readFile(join(project, 'ended.json'), 'utf8'))).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other' })
})

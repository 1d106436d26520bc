import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../../../../', import.meta.url))

/** Installs the pinned Codex CLI once (scripts/codex-cli.sh) and returns its `codex` program. */
export async function installCodex(): Promise<string> {
  const { stdout } = await run(join(repo, 'scripts/codex-cli.sh'), { timeout: 240_000 })
  return join(stdout.trim(), 'node_modules/.bin/codex')
}

/**
 * A fake Responses API on loopback that scripts one shell call per turn: the first request of a turn gets an
 * `exec_command` call of `command()`, the request carrying its output gets a closing message.
 */
export async function fakeModel(command: () => string) {
  let n = 0
  // What Codex sent back as the call's output (the function_call_output items), for comparing what the model saw.
  const outputs: unknown[] = []
  const server = createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    if (req.method !== 'POST' || !req.url?.endsWith('/responses')) return void res.writeHead(404).end()
    const answered = body.includes('"function_call_output"')
    if (answered) for (const item of JSON.parse(body).input ?? []) if (item?.type === 'function_call_output') outputs.push(item.output)
    const id = `resp_${++n}`
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    send('response.created', { response: { id } })
    const item = answered
      ? { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: 'done' }] }
      : { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: 'exec_command', arguments: JSON.stringify({ cmd: command() }) }
    send('response.output_item.done', { item })
    const usage = { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 }
    send('response.completed', { response: { id, usage } })
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}/v1`, outputs, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** The provider part of a CODEX_HOME config.toml pointing at the fake model (an unknown model name: no apply_patch tool). */
export const providerToml = (baseUrl: string) => `model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "${baseUrl}"
wire_api = "responses"
`

/** Runs one offline `codex exec` turn in `cwd` with `home` as CODEX_HOME; returns its JSONL events. */
export async function codexExec(codex: string, home: string, cwd: string): Promise<Record<string, unknown>[]> {
  const args = ['exec', '--skip-git-repo-check', '--json', '--dangerously-bypass-hook-trust', '--dangerously-bypass-approvals-and-sandbox', 'run the command']
  const running = run(codex, args, { cwd, env: { ...process.env, CODEX_HOME: home }, timeout: 120_000 })
  // codex exec also reads stdin for more prompt; an open pipe would keep it waiting.
  running.child.stdin?.end()
  const { stdout } = await running
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
}

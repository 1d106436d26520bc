// What does serving a tool through dshkit's MCP server cost per call, next to the same tool on a bare
// SDK McpServer? Both run as child processes over stdio and are called with the SDK client, interleaved
// in one run; an MCP ping (a no-op request) measures the stdio round trip itself.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import McpServerPlugin from '@dshkit/mcp-server'
import { Context } from 'cordis'
import { z } from 'zod'
import DshBase from '@dshkit/dsh-base'
import type {} from '@dshkit/agent-loop'
import { compare, machine, table } from './support/measure.js'

const here = dirname(fileURLToPath(import.meta.url))
const cli = join(here, '..', 'packages', 'cli', 'lib', 'bin.js')
const log = (message: string) => process.stderr.write(`mcp: ${message}\n`)

async function connect(args: string[]) {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }))
  return client
}

const root = await mkdtemp(join(tmpdir(), 'bench-mcp-'))
const config = join(here, 'support', 'mcp-cordis.yml')
log('starting the servers')
const bare = await connect([join(here, 'support', 'mcp-bare-server.mjs')])
const dshkit = await connect([cli, 'mcp', 'serve', '--config', config, '--root', root])
const logged = await connect([cli, 'mcp', 'serve', '--config', config, '--root', root, '--log', join(root, 'session.jsonl')])

const call = (client: Client) => async () => {
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } })
  if (result.isError) throw new Error(`echo failed: ${JSON.stringify(result.content)}`)
}
for (const client of [bare, dshkit, logged]) await call(client)()

log('measuring')
const us = await compare(
  {
    ping: () => bare.ping(),
    bare: call(bare),
    dshkit: call(dshkit),
    logged: call(logged),
  },
  { rounds: 15, batch: 200, warmup: 300 },
)

for (const client of [bare, dshkit, logged]) await client.close()

// Where dshkit's extra time goes: the same call in this process, no MCP, through what the server runs per call.
log('measuring the pipeline in-process')
const ctx = new Context()
await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [root] } })
await ctx.plugin({
  name: 'bench-echo',
  inject: ['tools'],
  apply: (ctx: Context) =>
    void ctx.tools.register({ name: 'echo', description: 'Echoes text.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text }),
})
await ctx.plugin(McpServerPlugin, {})
while (!ctx.get('loop') || !ctx.tools.get('echo') || !ctx.get('mcpServer')) await new Promise((resolve) => setTimeout(resolve, 10))
/** An SDK client linked in memory to a server: MCP without the pipe, so only the layers themselves count. */
async function inMemory(serve: (transport: InMemoryTransport) => Promise<unknown>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await serve(serverSide)
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(clientSide)
  return client
}
const bareServer = new McpServer({ name: 'bare', version: '1.0.0' })
bareServer.registerTool('echo', { description: 'Echoes text.', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
const bareInMemory = await inMemory((transport) => bareServer.connect(transport))
const dshkitInMemory = await inMemory((transport) => ctx.mcpServer.connect(transport))
let n = 0
const inProcess = await compare(
  {
    execute: () => ctx.tools.execute({ callId: `e${n++}`, name: 'echo', arguments: { text: 'hello' } }),
    // With a signal of its own, as the server passes each call's.
    loop: () => ctx.loop.executeToolCalls([{ callId: `l${n++}`, name: 'echo', arguments: { text: 'hello' } }], { signal: new AbortController().signal }),
    bare: call(bareInMemory),
    dshkit: call(dshkitInMemory),
  },
  { rounds: 15, batch: 200, warmup: 300 },
)
await rm(root, { recursive: true, force: true })

const section = `## mcp

Per call, median µs (${machine()}): the SDK client calling an \`echo\` tool over stdio on a bare SDK
\`McpServer\` (\`bare\`) and through \`dshkit mcp serve\` on the default dsh-base composition (every call
through the whole pipeline and the agent loop's session log, in memory; \`--log\` appends it to a
JSONL file, fsynced per event), and an MCP ping (the stdio round trip with nothing behind it),
interleaved in one run. Target: dshkit ≤ 1.2× bare.

${table(['ping (round trip)', 'bare McpServer', 'dshkit mcp serve', 'dshkit / bare', 'dshkit --log', '--log / bare'], [[us.ping, us.bare, us.dshkit, us.dshkit / us.bare, us.logged, us.logged / us.bare]])}

The same \`echo\` call in-process on the same composition, without MCP: \`ctx.tools.execute\` (the pipeline) and
\`ctx.loop.executeToolCalls\` of one call (pipeline + session log: what the server runs per call). What is left of
dshkit − bare after the loop is the MCP layer's own cost (the SDK \`Server\`, callId, signals, result mapping).

${table(['pipeline (execute)', 'pipeline + session (loop)', 'dshkit − bare (stdio)', 'MCP layer ≈ (dshkit − bare) − loop'], [[inProcess.execute, inProcess.loop, us.dshkit - us.bare, us.dshkit - us.bare - inProcess.loop]])}

The MCP layers alone, in this process over the SDK's \`InMemoryTransport\` (no pipe): the bare \`McpServer\` call,
dshkit's (\`ctx.mcpServer.connect\`), and dshkit's minus the loop call it makes — this package's own cost next to
the SDK's own.

${table(['bare McpServer (in memory)', 'dshkit (in memory)', 'dshkit − loop', '(dshkit − loop) / bare'], [[inProcess.bare, inProcess.dshkit, inProcess.dshkit - inProcess.loop, (inProcess.dshkit - inProcess.loop) / inProcess.bare]])}`
// dsh-base's plugins keep the process alive; exit once the section is written out.
process.stdout.write(section + '\n', () => process.exit(0))

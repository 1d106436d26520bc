// What does running a tool through a dshkit adapter cost, next to the framework running the same no-op tool itself
// plus dshkit's own pipeline? Per framework, one model step with one no-op call (each framework's own test model,
// no network), interleaved in one run with the pipeline call (`ctx.tools.execute`) and the loop call the adapters make.
import { Agent, run, setTracingDisabled, tool as agentTool, Usage, type Model, type ModelResponse } from '@openai/agents'
import { AIMessage } from '@langchain/core/messages'
import { tool as langchainTool } from '@langchain/core/tools'
import { generateText, jsonSchema, stepCountIs, tool as aiTool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Context } from 'cordis'
import { z } from 'zod'
import { dshkitTools } from '@dshkit/ai-sdk'
import DshBase from '@dshkit/dsh-base'
import { dshkitLangChainTools, runToolCalls } from '@dshkit/langchain'
import { dshkitAgentTools, dshkitToolUseBehavior } from '@dshkit/openai-agents'
import type {} from '@dshkit/agent-loop'
import { compare, machine, table } from './support/measure.js'

// The Agents SDK traces every run by default (and warns per run without an API key): not what is measured here.
setTracingDisabled(true)
const log = (message: string) => process.stderr.write(`adapters: ${message}\n`)
const NOOP_SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false } as const

log('booting dsh-base')
const ctx = new Context()
await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [process.cwd()] }, 'user-approval': { responder: 'headless', grants: false } })
await ctx.plugin({
  name: 'bench-noop',
  inject: ['tools'],
  apply: (ctx: Context) => void ctx.tools.register({ name: 'noop', description: 'does nothing', parameters: z.object({ n: z.number() }), execute: () => 'ok' }),
})
while (!ctx.get('loop') || !ctx.tools.get('noop')) await new Promise((resolve) => setTimeout(resolve, 10))

let id = 0
const execute = ctx.tools.execute
const loop = ctx.loop

// AI SDK: generateText, one step whose model output is one call of `noop`.
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const aiModel = new MockLanguageModelV3({
  doGenerate: async () => ({
    content: [{ type: 'tool-call' as const, toolCallId: `a${id++}`, toolName: 'noop', input: '{"n":1}' }],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  }),
})
const aiBare = {
  noop: aiTool({
    description: 'does nothing',
    inputSchema: jsonSchema<{ n: number }>({ ...NOOP_SCHEMA, required: [...NOOP_SCHEMA.required] }),
    execute: async () => 'ok',
  }),
}
const aiDshkit = dshkitTools(ctx, { only: ['noop'] })
const aiStep = (tools: typeof aiBare | typeof aiDshkit) => async () => {
  const result = await generateText({ model: aiModel, tools, prompt: 'go', stopWhen: stepCountIs(1) })
  if (result.toolResults.length !== 1) throw new Error(`ai: expected one tool result, got ${JSON.stringify(result.content)}`)
}

// OpenAI Agents: run() of one turn whose model output is one call of `noop`, stopping on the tool's output.
class NoopCallModel implements Model {
  async getResponse(): Promise<ModelResponse> {
    const callId = `o${id++}`
    const call = { type: 'function_call' as const, callId, id: callId, name: 'noop', status: 'completed' as const, arguments: '{"n":1}' }
    return { usage: new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }), output: [call], responseId: callId }
  }
  // biome-ignore lint/correctness/useYield: the bench does not stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('NoopCallModel does not stream')
  }
}
const agentsModel = new NoopCallModel()
const agentsBare = new Agent({
  name: 'bare',
  model: agentsModel,
  tools: [agentTool({ name: 'noop', description: 'does nothing', parameters: NOOP_SCHEMA as any, strict: false, execute: async () => 'ok' })],
  toolUseBehavior: 'stop_on_first_tool',
})
const agentsDshkit = new Agent({
  name: 'dshkit',
  model: agentsModel,
  tools: dshkitAgentTools(ctx, { only: ['noop'] }),
  // dshkit's behavior would run the model again; the bench stops on the first output, as the bare agent does.
  toolUseBehavior: 'stop_on_first_tool',
})
if (typeof dshkitToolUseBehavior !== 'function') throw new Error('@dshkit/openai-agents: dshkitToolUseBehavior is missing')
const agentsTurn = (agent: Agent) => async () => {
  const result = await run(agent, 'go')
  if (result.finalOutput !== 'ok') throw new Error(`agents: expected "ok", got ${JSON.stringify(result.finalOutput)}`)
}

// LangChain: the app runs the model's tool calls; a tool invoked with one call, and runToolCalls on one AI message.
const lcBare = langchainTool(async () => 'ok', { name: 'noop', description: 'does nothing', schema: NOOP_SCHEMA as any })
const [lcDshkit] = dshkitLangChainTools(ctx, { only: ['noop'] })
const lcInvoke = (t: typeof lcBare) => async () => {
  const message = (await t.invoke({ id: `l${id++}`, name: 'noop', args: { n: 1 }, type: 'tool_call' })) as unknown as { status?: string; content: unknown }
  if (message.status === 'error') throw new Error(`langchain: ${message.content}`)
}
const lcMessage = () => runToolCalls(ctx, new AIMessage({ content: '', tool_calls: [{ id: `m${id++}`, name: 'noop', args: { n: 1 }, type: 'tool_call' }] }))

for (const fn of [aiStep(aiBare), aiStep(aiDshkit), agentsTurn(agentsBare), agentsTurn(agentsDshkit), lcInvoke(lcBare), lcInvoke(lcDshkit as any), lcMessage])
  await fn()

log('measuring')
const us = await compare(
  {
    execute: () => execute({ callId: `e${id++}`, name: 'noop', arguments: { n: 1 } }),
    loop: () => loop.executeToolCalls([{ callId: `x${id++}`, name: 'noop', arguments: { n: 1 } }], { signal: new AbortController().signal }),
    aiBare: aiStep(aiBare),
    aiDshkit: aiStep(aiDshkit),
    agentsBare: agentsTurn(agentsBare),
    agentsDshkit: agentsTurn(agentsDshkit),
    lcBare: lcInvoke(lcBare),
    lcDshkit: lcInvoke(lcDshkit as any),
    lcMessage,
  },
  { rounds: 15, batch: 200, warmup: 300 },
)
log(JSON.stringify(us))

const row = (framework: string, bare: number, dshkit: number) => [
  framework,
  bare,
  dshkit,
  bare + us.execute,
  dshkit / (bare + us.execute),
  bare + us.loop,
  dshkit / (bare + us.loop),
]

const section = `## adapters

Per no-op tool call, median µs (${machine()}), interleaved in one run on the default dsh-base composition: each
framework running a no-op tool of its own (\`bare\`) and dshkit's \`noop\` through its adapter (\`adapter\`) — for the AI
SDK one \`generateText\` step of \`MockLanguageModelV3\` answering one call, for the Agents SDK one \`run()\` turn of a
fake \`Model\` answering one call (\`toolUseBehavior: 'stop_on_first_tool'\` for both), for LangChain the tool's
\`invoke\` with one tool call. \`pipeline\` is \`ctx.tools.execute\` of the same no-op (${us.execute.toFixed(1)} µs), \`loop\` is
\`ctx.loop.executeToolCalls\` of one call (${us.loop.toFixed(1)} µs: the pipeline plus the session's records), which is what
every adapter runs. Target: adapter ≤ 1.1× (bare + pipeline).

${table(
  ['framework', 'bare µs', 'adapter µs', 'bare + pipeline µs', 'adapter / (bare + pipeline)', 'bare + loop µs', 'adapter / (bare + loop)'],
  [
    row('AI SDK (generateText step)', us.aiBare, us.aiDshkit),
    row('OpenAI Agents (run, one turn)', us.agentsBare, us.agentsDshkit),
    row('LangChain (tool.invoke)', us.lcBare, us.lcDshkit),
    row('LangChain (runToolCalls, one message)', us.lcBare, us.lcMessage),
  ],
)}

The fourth adapter, \`@dshkit/mcp-server\`, is measured in the \`mcp\` section (its own cost next to a bare SDK \`McpServer\`).`
// dsh-base's plugins keep the process alive; exit once the section is written out.
process.stdout.write(`${section}\n`, () => process.exit(0))

// A real Agents SDK run driven by a network-free Model; dshkit runs every tool call. A policy's ask becomes an interruption.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { Agent, run, setTracingDisabled, Usage } from '@openai/agents'
import DshBase from '@dshkit/dsh-base'
import { dshkitAgentTools, dshkitToolUseBehavior } from '@dshkit/openai-agents'

setTracingDisabled(true)
const root = mkdtempSync(join(tmpdir(), 'dshkit-agents-example-'))
writeFileSync(join(root, 'README.md'), '# demo\n')
const ctx = new Context()
await ctx.plugin(DshBase, {
  'fs-sandbox': { roots: [root] },
  'shell-sandbox': false,
  'user-approval': { responder: 'headless', grants: false },
  'permission-policy': { rules: [{ tool: 'fs_write', decision: 'ask', reason: 'writes need a yes' }] },
})

const call = (callId, name, args) => ({ type: 'function_call', callId, id: callId, name, status: 'completed', arguments: JSON.stringify(args) })
const say = (text) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] })
// Each request answers the next scripted turn.
class ScriptedModel {
  constructor(turns) {
    this.turns = turns
    this.requests = 0
  }
  async getResponse() {
    const output = this.turns[Math.min(this.requests++, this.turns.length - 1)]
    return { usage: new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }), output, responseId: `r${this.requests}` }
  }
  // biome-ignore lint/correctness/useYield: the example does not stream
  async *getStreamedResponse() {
    throw new Error('not streaming here')
  }
}
const model = new ScriptedModel([
  [
    call('c1', 'fs_read', { path: 'README.md' }),
    call('c2', 'fs_list', { path: '.' }),
    call('c3', 'fs_read', { path: '/etc/passwd' }),
    call('c4', 'fs_write', { path: 'notes.md', content: 'hi' }),
  ],
  [say('all done')],
])
const agent = new Agent({ name: 'coder', model, tools: dshkitAgentTools(ctx), toolUseBehavior: dshkitToolUseBehavior })

let result = await run(agent, 'look around, then write notes.md')
for (const item of result.newItems)
  if (item.type === 'tool_call_output_item') console.log(`${item.rawItem.callId} ${item.rawItem.name}: ${String(item.output).slice(0, 100)}`)
for (const item of result.interruptions) {
  console.log(`${item.rawItem.callId} ${item.rawItem.name}: needs approval`)
  result.state.approve(item) // the app's UI would ask its user; here the user says yes
}
result = await run(agent, result.state)
console.log(`c4 fs_write after approval: notes.md ${existsSync(join(root, 'notes.md')) ? 'written' : 'missing'}`)
console.log(`model: ${result.finalOutput}`)
console.log(
  `session: ${ctx.session
    .events()
    .map((event) => event.type)
    .join(', ')}`,
)
rmSync(root, { recursive: true, force: true })
// dsh-base's logger keeps process listeners: end here, as a script does.
process.exit(0)

// A real LangChain loop: a fake chat model per turn (no network) asks for tools; runToolCalls answers them as one dshkit batch.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { AIMessage, AIMessageChunk, HumanMessage } from '@langchain/core/messages'
import { FakeStreamingChatModel } from '@langchain/core/utils/testing'
import DshBase from '@dshkit/dsh-base'
import { dshkitLangChainTools, runToolCalls } from '@dshkit/langchain'

const root = mkdtempSync(join(tmpdir(), 'dshkit-langchain-example-'))
writeFileSync(join(root, 'README.md'), '# demo\n')
const ctx = new Context()
await ctx.plugin(DshBase, {
  'fs-sandbox': { roots: [root] },
  'shell-sandbox': false,
  'user-approval': { responder: 'headless', grants: false },
  'permission-policy': { rules: [{ tool: 'fs_write', decision: 'ask', reason: 'writes need a yes' }] },
})
// LangChain has no approval flow of its own: a dshkit responder answers the policy's asks (here: yes).
ctx.approval.respond(() => ({ kind: 'allow' }))

// The fake model answers its first response every time, so each turn gets its own.
const turn = (message) =>
  new FakeStreamingChatModel({ sleep: 0, responses: [message], chunks: [new AIMessageChunk({ content: '', tool_calls: message.tool_calls ?? [] })] })
const asking = (calls) => new AIMessage({ content: '', tool_calls: calls.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' })) })
const turns = [
  asking([
    ['c1', 'fs_read', { path: 'README.md' }],
    ['c2', 'fs_list', { path: '.' }],
    ['c3', 'fs_read', { path: '/etc/passwd' }],
    ['c4', 'fs_write', { path: 'notes.md', content: 'hi' }],
  ]),
  new AIMessage('all done'),
]
const tools = dshkitLangChainTools(ctx)
const history = [new HumanMessage('look around, then write notes.md')]
for (const scripted of turns) {
  const ai = await turn(scripted).bindTools(tools).invoke(history)
  history.push(ai)
  if (!ai.tool_calls?.length) break
  for (const message of await runToolCalls(ctx, ai)) {
    console.log(`${message.tool_call_id} ${message.name}: ${message.status} ${String(message.content).slice(0, 100)}`)
    history.push(message)
  }
}
console.log(`model: ${history.at(-1).content}`)
console.log(
  `session: ${ctx.session
    .events()
    .map((event) => event.type)
    .join(', ')}`,
)
rmSync(root, { recursive: true, force: true })
// dsh-base's logger keeps process listeners: end here, as a script does.
process.exit(0)

// A real generateText loop driven by the AI SDK's own MockLanguageModelV3 (no network); dshkit runs every tool call.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { generateText, isStepCount } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import DshBase from '@dshkit/dsh-base'
import { dshkitTools, turnConcluded } from '@dshkit/ai-sdk'

const root = mkdtempSync(join(tmpdir(), 'dshkit-ai-sdk-example-'))
writeFileSync(join(root, 'README.md'), '# demo\n')
const ctx = new Context()
await ctx.plugin(DshBase, {
  'fs-sandbox': { roots: [root] },
  'shell-sandbox': false,
  'user-approval': { responder: 'headless', grants: false },
  'permission-policy': { rules: [{ tool: 'fs_write', decision: 'ask', reason: 'writes need a yes' }] },
})

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const step = (calls) => ({
  content: calls.map(([toolCallId, toolName, input]) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })),
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
})
const say = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] })
const model = new MockLanguageModelV3({
  doGenerate: [
    // One step: two reads (one batch, overlapping), a read outside the sandbox (denied), a write (a policy asks).
    step([
      ['c1', 'fs_read', { path: 'README.md' }],
      ['c2', 'fs_list', { path: '.' }],
      ['c3', 'fs_read', { path: '/etc/passwd' }],
      ['c4', 'fs_write', { path: 'notes.md', content: 'hi' }],
    ]),
    say('all done'),
  ],
})

const tools = dshkitTools(ctx)
const prompt = [{ role: 'user', content: 'look around, then write notes.md' }]
const first = await generateText({ model, tools, messages: prompt, stopWhen: [turnConcluded, isStepCount(5)] })
for (const part of first.steps[0].content) {
  if (part.type === 'tool-result') console.log(`${part.toolCallId} ${part.toolName}: ok`)
  if (part.type === 'tool-error') console.log(`${part.toolCallId} ${part.toolName}: ${part.error}`)
  if (part.type === 'tool-approval-request') console.log(`${part.toolCall.toolCallId} ${part.toolCall.toolName}: needs approval`)
}
// The app's UI would ask its user; here the user says yes.
const approvals = first.steps[0].content.filter((part) => part.type === 'tool-approval-request')
const answer = { role: 'tool', content: approvals.map((request) => ({ type: 'tool-approval-response', approvalId: request.approvalId, approved: true })) }
const second = await generateText({ model, tools, messages: [...prompt, ...first.response.messages, answer], stopWhen: [turnConcluded, isStepCount(5)] })
console.log(`c4 fs_write after approval: notes.md ${existsSync(join(root, 'notes.md')) ? 'written' : 'missing'}`)
console.log(`model: ${second.text}`)
console.log(
  `session: ${ctx.session
    .events()
    .map((event) => event.type)
    .join(', ')}`,
)
rmSync(root, { recursive: true, force: true })
// dsh-base's logger keeps process listeners: end here, as a script does.
process.exit(0)

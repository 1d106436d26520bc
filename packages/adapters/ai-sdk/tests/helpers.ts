import { MockLanguageModelV3 } from 'ai/test'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

/** A model step that calls tools: `[toolCallId, toolName, input]`. */
export const toolStep = (calls: [string, string, unknown][]) => ({
  content: calls.map(([toolCallId, toolName, input]) => ({ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) })),
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
})
export const textStep = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage,
  warnings: [],
})
export const mockModel = (...steps: ReturnType<typeof toolStep | typeof textStep>[]) => new MockLanguageModelV3({ doGenerate: steps as any })

/** What the model was shown for each tool call in its `n`-th request. */
export function toolOutputsSeen(model: MockLanguageModelV3, n: number): Record<string, { type: string; value?: unknown; reason?: string }> {
  const prompt = model.doGenerateCalls[n].prompt
  const parts = prompt.flatMap((message: any) => (message.role === 'tool' ? message.content : []))
  return Object.fromEntries(parts.filter((p: any) => p.type === 'tool-result').map((p: any) => [p.toolCallId, p.output]))
}

export { expectStepScheduled, harness, plugFinisher, plugStopper } from '../../test-harness.js'

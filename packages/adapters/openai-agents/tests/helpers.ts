import { Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents'

export { expectStepScheduled, harness, plugFinisher, plugStopper } from '../../test-harness.js'

/** A function call the model makes. */
export const call = (callId: string, name: string, args: unknown) => ({
  type: 'function_call' as const,
  callId,
  id: callId,
  name,
  status: 'completed' as const,
  arguments: JSON.stringify(args),
})
/** A plain answer. */
export const say = (text: string) => ({
  type: 'message' as const,
  role: 'assistant' as const,
  status: 'completed' as const,
  content: [{ type: 'output_text' as const, text }],
})

/** A network-free Model: each request answers the next scripted turn (the last one repeats). */
export class FakeModel implements Model {
  readonly requests: ModelRequest[] = []
  constructor(private readonly turns: ReturnType<typeof call | typeof say>[][]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request)
    request.signal?.throwIfAborted()
    const output = this.turns[Math.min(this.requests.length - 1, this.turns.length - 1)]
    return { usage: new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }), output, responseId: `resp_${this.requests.length}` }
  }
  // biome-ignore lint/correctness/useYield: the tests run without streaming
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('FakeModel does not stream')
  }
  /** What the model was shown for each call in its `n`-th request. */
  outputsSeen(n: number): Record<string, unknown> {
    const input = this.requests[n].input as any[]
    return Object.fromEntries(input.filter((item) => item.type === 'function_call_result').map((item) => [item.callId, item.output]))
  }
}

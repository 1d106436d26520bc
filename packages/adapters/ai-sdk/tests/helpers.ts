import { Context } from 'cordis'
import DshBase from '@dshkit/dsh-base'
import { onCleanup, overlapProbe, plug, tempDir } from '@dshkit/testing'
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

/** dsh-base on a temp root (unconfined shell, headless approval, fs_write outside `notes/` asks), plus the overlap probe. */
export async function harness() {
  const root = await tempDir('dshkit-ai-sdk-')
  const ctx = new Context()
  onCleanup(() => disposeAll(ctx))
  await plug(ctx, DshBase, {
    'fs-sandbox': { roots: [root] },
    'shell-sandbox': false,
    'shell-local': {},
    'user-approval': { responder: 'headless', grants: false },
    'permission-policy': { rules: [{ tool: 'fs_write', when: { path: '**/ask/**' }, decision: 'ask', reason: 'writes under ask/ need a yes' }] },
  })
  const probe = overlapProbe()
  await plug(ctx, {
    name: 'probe-tools',
    inject: ['tools'],
    apply: (ctx: Context) => {
      for (const tool of probe.tools) ctx.tools.register(tool)
    },
  })
  return { ctx, root, probe }
}

async function disposeAll(ctx: Context) {
  const fibers = [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers]).filter((fiber) => fiber.parent.fiber === ctx.fiber)
  for (const fiber of fibers.reverse()) await fiber.dispose()
}

import type { Context } from 'cordis'
import {
  blockText,
  describeBlock,
  joinText,
  type ContentBlock,
  type ImageBlock,
  type TextBlock,
  type ToolExecutionResult,
  type ToolSchema,
} from '@dshkit/tools'
import type { AgentLoop } from './loop.js'

/** What the adapters call on the loop. */
export type LoopCalls = Pick<AgentLoop, 'executeToolCalls'>

// Per context, the loop's executeToolCalls taken once: every `ctx.get` (and every method read on the service) builds a
// cordis proxy, which a no-op call through an adapter paid twice. Forgotten whenever a service comes or goes.
const held = new WeakMap<Context, { loop: LoopCalls | undefined }>()

/** For adapters: the loop (a restarted loop service is the one used); throws when it is missing. */
export function requireLoop(ctx: Context, caller: string): () => LoopCalls {
  if (!ctx.get('loop') || !ctx.get('tools')) {
    throw new Error(`${caller}(ctx) needs ctx.tools and ctx.loop (@dshkit/agent-loop; dsh-base has both): await ctx.plugin(DshBase) first`)
  }
  let hold = held.get(ctx)
  if (!hold) {
    const fresh: { loop: LoopCalls | undefined } = { loop: undefined }
    ctx.on('internal/service', () => void (fresh.loop = undefined))
    held.set(ctx, (hold = fresh))
  }
  const cache = hold
  return () => (cache.loop ??= takeLoop(ctx.get('loop')!))
}

function takeLoop(loop: AgentLoop): LoopCalls {
  const executeToolCalls = loop.executeToolCalls.bind(loop)
  return { executeToolCalls }
}

/** The schemas of the tools registered now, or of `only` (an unknown name throws, naming it). */
export function frameworkSchemas(ctx: Context, only: readonly string[] | undefined, caller: string): ToolSchema[] {
  const schemas = ctx.tools.schemas()
  if (!only) return schemas
  const missing = only.filter((name) => !schemas.some((schema) => schema.name === name))
  if (missing.length) throw new Error(`${caller}: no tool named ${missing.map((name) => JSON.stringify(name)).join(', ')} is registered; check options.only`)
  return schemas.filter((schema) => only.includes(schema.name))
}

/**
 * What a framework shows the model for a result: its content, then its additional contexts' content (frameworks
 * have no place for messages between the tool results and the next model call).
 */
export function modelContent(result: ToolExecutionResult): ContentBlock[] {
  const contexts = result.additionalContexts ?? []
  return contexts.length ? [...result.content, ...contexts.flatMap((context) => context.content)] : [...result.content]
}

/**
 * Blocks narrowed to what every framework carries, text and images: a text resource becomes its text; audio, a
 * binary resource or a resource link becomes a one-line description (`[audio audio/wav, 12 KB]`), so nothing fails.
 */
export function textAndImages(blocks: readonly ContentBlock[]): (TextBlock | ImageBlock)[] {
  return blocks.map((block) => (block.type === 'image' ? block : { type: 'text', text: blockText(block) ?? describeBlock(block) }))
}

/**
 * A failed dshkit result, thrown inside a framework so it takes its tool-error path. Frameworks show the model
 * `String(error)`: exactly dshkit's text (`Error: <message>`), not `Error: Error: …`; `.result` is the dshkit result.
 */
export class DshkitToolError extends Error {
  override name = 'DshkitToolError'
  constructor(readonly result: ToolExecutionResult & { isError: true }) {
    super(result.error.message)
  }
  override toString(): string {
    return joinText(modelContent(this.result))
  }
}

import { Context } from 'cordis'
import { z } from 'zod'
import Tools, { defineTool, type ToolDefinition, type ToolExecutionResult } from '../src/index.js'

/** A fresh Context with the tools service and a log of every `tools/result` emitted. */
export async function setup() {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const observed: ToolExecutionResult[] = []
  ctx.on('tools/result', (_exec, result) => void observed.push(result))
  return { ctx, observed }
}

/** Plugs a named plugin (its name is what `source` reports) and waits until it is active. */
export async function plug(ctx: Context, name: string, apply: (ctx: Context) => void) {
  const fiber = ctx.plugin({ name, inject: ['tools'], apply })
  await fiber
  return fiber
}

export const echo = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
})

export function tool(overrides: Partial<ToolDefinition> & Pick<ToolDefinition, 'execute'>): ToolDefinition {
  return { name: 'probe', description: 'test tool', parameters: z.any(), ...overrides }
}

export const call = (name = 'echo', args: unknown = { text: 'hi' }, signal?: AbortSignal) => ({ callId: 'c1', name, arguments: args, signal })

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export function isDeepFrozen(value: unknown): boolean {
  if (!value || typeof value !== 'object') return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

/** Installs a minimal `approval` service answering with `request`. */
export function provideApproval(ctx: Context, request: (req: any) => Promise<any>) {
  ctx.provide('approval', { request })
}

import { PassThrough } from 'node:stream'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import { z } from 'zod'
import UserApproval, { type Config } from '../src/index.js'
import { sleep } from '@dshkit/testing'

/** Tools `shell` and `fs_write` that record their runs, a plugin that asks about every call, and user-approval. */
export async function setup(config: Partial<Config>, asker: { reason?: string } = {}) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const ran: string[] = []
  await ctx.plugin({
    name: 'asker',
    inject: ['tools'],
    apply(ctx) {
      for (const name of ['shell', 'fs_write']) {
        ctx.tools.register({ name, description: name, parameters: z.any(), execute: () => (ran.push(name), 'ran') })
      }
      ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: asker.reason ?? 'needs a human' }))
    },
  })
  // In memory unless a test names a file: the default (.dshkit/grants.json under the cwd) would be the repo's.
  const fiber = ctx.plugin(UserApproval, { grants: false, ...config } as Config)
  await fiber
  const run = (name = 'shell', args: unknown = { cmd: 'ls' }, signal?: AbortSignal) => ctx.tools.execute({ callId: 'c', name, arguments: args, signal })
  return { ctx, fiber, ran, run }
}

/** An in-memory terminal: `typed()` feeds a line, `screen` is everything written, `waitFor` polls it. */
export function terminal() {
  const input = new PassThrough()
  const output = new PassThrough()
  let screen = ''
  output.on('data', (chunk) => {
    screen += chunk.toString()
  })
  return {
    input,
    output,
    get screen() {
      return screen
    },
    type: (text: string) => void input.write(text),
    waitFor: (pattern: string | RegExp, count = 1, timeoutMs = 5000) => waitFor(() => screen, pattern, count, timeoutMs),
  }
}

export async function waitFor(read: () => string, pattern: string | RegExp, count = 1, timeoutMs = 5000) {
  const start = Date.now()
  const occurrences = () => (typeof pattern === 'string' ? read().split(pattern).length - 1 : (read().match(new RegExp(pattern, 'g')) ?? []).length)
  while (occurrences() < count) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${count}× ${pattern} in:\n${read()}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

export { sleep }

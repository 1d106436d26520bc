import type { Context } from 'cordis'
import { z } from 'zod'
import { strictConfig } from '@dshkit/tools'
import { UserApproval } from './service.js'

export * from './types.js'
export { TtyResponder, type TtyOptions } from './tty.js'
export { UserApproval }

export const name = 'user-approval'

const isReadable = (value: unknown) => typeof (value as NodeJS.ReadableStream)?.on === 'function' && typeof (value as NodeJS.ReadableStream).resume === 'function'
const isWritable = (value: unknown) => typeof (value as NodeJS.WritableStream)?.write === 'function'

export const Config = strictConfig({
  responder: z.enum(['auto', 'headless', 'tty'], { error: 'responder must be "auto", "headless" or "tty"' }).default('auto'),
  timeoutMs: z.number({ error: 'timeoutMs must be a number of milliseconds' })
    .positive('timeoutMs must be more than 0 ms').max(2 ** 31 - 1, 'timeoutMs must be at most 2147483647 ms').default(300_000),
  // Streams come from code (tests, embedders), never from YAML.
  input: z.custom<NodeJS.ReadableStream>(isReadable, 'input must be a readable stream (pass it from code)').optional(),
  output: z.custom<NodeJS.WritableStream>(isWritable, 'output must be a writable stream (pass it from code)').optional(),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

export function apply(ctx: Context, input?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  new UserApproval(ctx, config)
}

export default { name, Config, apply }

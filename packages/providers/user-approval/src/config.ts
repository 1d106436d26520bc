import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

const isReadable = (value: unknown) =>
  typeof (value as NodeJS.ReadableStream)?.on === 'function' && typeof (value as NodeJS.ReadableStream).resume === 'function'
const isWritable = (value: unknown) => typeof (value as NodeJS.WritableStream)?.write === 'function'

export const Config = strictConfig({
  responder: z.enum(['auto', 'headless', 'tty'], { error: 'responder must be "auto", "headless" or "tty"' }).default('auto'),
  timeoutMs: z
    .number({ error: 'timeoutMs must be a number of milliseconds' })
    .positive('timeoutMs must be more than 0 ms')
    .max(2 ** 31 - 1, 'timeoutMs must be at most 2147483647 ms')
    .default(300_000),
  // Relative paths resolve against the process's cwd when the plugin starts; false keeps grants in memory.
  grants: z
    .union([z.string().min(1, 'grants must be a file path, or false to keep grants in memory'), z.literal(false)], {
      error: 'grants must be a file path, or false to keep grants in memory',
    })
    .default('.dshkit/grants.json'),
  // Streams come from code (tests, embedders), never from YAML.
  input: z.custom<NodeJS.ReadableStream>(isReadable, 'input must be a readable stream (pass it from code)').optional(),
  output: z.custom<NodeJS.WritableStream>(isWritable, 'output must be a writable stream (pass it from code)').optional(),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

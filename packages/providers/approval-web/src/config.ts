import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const Config = strictConfig({
  host: z
    .string({ error: 'host must be a string, e.g. "127.0.0.1"' })
    .min(1, 'host must not be empty')
    .default('127.0.0.1')
    .describe('address to listen on; anything but loopback serves the page to other hosts (the token still guards it)'),
  port: z
    .number({ error: 'port must be a number' })
    .int('port must be a whole number')
    .min(0, 'port must be 0 (any free port) or 1-65535')
    .max(65535, 'port must be at most 65535')
    .default(0)
    .describe('TCP port; 0 takes any free port'),
  printUrl: z
    .boolean({ error: 'printUrl must be true or false' })
    .default(true)
    .describe('write the page URL (with its token) to stderr once the server listens'),
  recent: z
    .number({ error: 'recent must be a number' })
    .int()
    .min(0)
    .max(1000, 'recent must be at most 1000')
    .default(50)
    .describe('how many answered or ended asks the page keeps showing with their outcome'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

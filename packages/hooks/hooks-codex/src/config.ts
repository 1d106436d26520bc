import { z } from 'zod'
import { strictConfig } from '@dshkit/tools'

const Mapping = strictConfig({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.string()).optional(),
  paths: z.array(z.string()).optional(),
})

export const Config = strictConfig({
  configPath: z.string({ error: 'configPath is required: the Codex hooks.json whose hooks to run (e.g. ".codex/hooks.json")' })
    .min(1, 'configPath must not be empty'),
  projectDir: z.string().min(1).optional(),
  onError: z.enum(['deny', 'allow']).default('deny'),
  toolNames: z.record(z.string(), z.union([z.literal(false), Mapping], {
    error: 'a toolNames entry is false or { name: "Bash", arguments?: { command: "cmd" }, paths?: [] }',
  })).default({}),
  sessionId: z.string().min(1).optional(),
  transcriptPath: z.string().nullable().default(null),
}).prefault({} as never) // so a plugin added with no config at all gets the configPath message
export type Config = z.infer<typeof Config>
/** What a user passes (defaults optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

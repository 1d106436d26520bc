import { z } from 'zod'
import { strictConfig } from '@dshkit/tools'

const ToolName = z.union([
  z.literal(false),
  strictConfig({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.string()).optional(),
    paths: z.array(z.string()).optional(),
  }),
], { error: 'a toolNames entry is false or { name: "Write", arguments?: { file_path: "path" }, paths?: ["file_path"] }' })

export const Config = strictConfig({
  configPath: z.string({ error: 'configPath is required: the Claude Code settings file whose hooks to run (e.g. ".claude/settings.json")' })
    .min(1, 'configPath must not be empty'),
  projectDir: z.string().min(1).optional(),
  onError: z.enum(['deny', 'allow']).default('deny'),
  toolNames: z.record(z.string(), ToolName).default({}),
  sessionId: z.string().min(1).optional(),
  transcriptPath: z.string().default(''),
}).prefault({} as never) // so a plugin added with no config at all gets the configPath message
export type Config = z.infer<typeof Config>
/** What a user passes (defaults optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

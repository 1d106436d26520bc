import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import { z } from 'zod'
import { openHookBridge } from '@dshkit/hook-protocol'
import { strictConfig } from '@dshkit/tools' // also the tools/* event types

export const name = 'hooks-codex'

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

/**
 * Runs the PreToolUse / PostToolUse hooks of a Codex hooks.json around every tool call.
 * Codex pre hooks can only deny, so `allow` and `ask` answers are ignored with a warning.
 */
export function apply(ctx: Context, input: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  const sessionId = config.sessionId ?? randomUUID()
  const bridge = openHookBridge({
    ...config,
    source: name,
    label: 'Codex hooks',
    askSupported: false,
    payload: (cwd) => ({ session_id: sessionId, transcript_path: config.transcriptPath, cwd }),
    logger: ctx.logger(name),
  })
  ctx.on('tools/pre-execute', bridge.preExecute)
  ctx.on('tools/post-execute', bridge.postExecute)
}

export default { name, Config, apply }

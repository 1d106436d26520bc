import { limitOverridesShape } from '@dshkit/hook-protocol'
import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { PERMISSION_MODES } from '@dshkit/hook-protocol'

const Mapping = strictConfig({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.string()).optional(),
  paths: z.array(z.string()).optional(),
})

// true: the file's usual place (skipped when it is not there); a string: that file (it must exist).
const Source = z.union([z.boolean(), z.string().min(1)], { error: 'a hooks source is true (its usual place), false, or a file path' })
const Plugin = z.union([z.string().min(1), strictConfig({ root: z.string().min(1), data: z.string().min(1).optional() })], {
  error: 'a plugins entry is the plugin root dir, or { root, data? }',
})

const CONFIG_PATH_REQUIRED =
  'configPath is required: the Codex hooks.json or config.toml whose hooks to run (e.g. ".codex/hooks.json"), unless sources or plugins name some'

export const Config = strictConfig({
  configPath: z.string({ error: CONFIG_PATH_REQUIRED }).min(1, 'configPath must not be empty').optional(),
  sources: strictConfig({
    user: Source.default(false),
    project: Source.default(false),
  }).optional(),
  plugins: z.array(Plugin).default([]),
  projectDir: z.string().min(1).optional(),
  onError: z.enum(['deny', 'allow']).default('deny'),
  // Hooks are external commands that may have side effects: a dry run (ctx.tools.explain) lists them without running them unless told.
  // Claude Code's way: settings changed since a person last accepted them are refused at start (`dshkit hooks accept`).
  accepted: z
    .union([z.literal(false), z.string().min(1)], { error: 'accepted is the snapshot file of accepted settings (relative to projectDir), or false' })
    .optional(),
  dryRun: z.enum(['report', 'run'], { error: 'dryRun must be "report" (hooks are not run in a dry run) or "run"' }).default('report'),
  timeout: z.number().positive('timeout must be a positive number of seconds').optional(),
  /** Resource limits of every hook command, over @dshkit/shell's defaults (processes, memoryBytes, cpuSeconds, fileSizeBytes, openFiles). */
  limits: strictConfig(limitOverridesShape).prefault({}),
  toolNames: z
    .record(
      z.string(),
      z.union([z.literal(false), Mapping], {
        error: 'a toolNames entry is false or { name: "Bash", arguments?: { command: "cmd" }, paths?: [] }',
      }),
    )
    .default({}),
  sessionId: z.string().min(1).optional(),
  /** The payload's `turn_id`; dshkit's tool pipeline sees no turns, so by default one id per plugin instance. */
  turnId: z.string().min(1).optional(),
  transcriptPath: z.string().nullable().optional(),
  permissionMode: z.enum(PERMISSION_MODES).optional(),
  /** The payload's `model`; by default the `model` of the config.toml files read (project over user). */
  model: z.string().min(1).optional(),
})
  .superRefine((config, ctx) => {
    const any = config.configPath !== undefined || config.plugins.length > 0 || Object.values(config.sources ?? {}).some((source) => source !== false)
    if (!any) ctx.addIssue({ code: 'custom', path: ['configPath'], message: CONFIG_PATH_REQUIRED })
  })
  .prefault({} as never) // so a plugin added with no config at all gets the configPath message
export type Config = z.infer<typeof Config>
/** What a user passes (defaults optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

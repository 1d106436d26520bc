import { z } from 'zod'
import type { ShellDefaults } from '@dshkit/shell'
import { limitsShape } from '@dshkit/process'
import { strictConfig } from '@dshkit/common'

const MAX_TIMER_MS = 2 ** 31 - 1

// Names are checked on the raw object: a name with `=` or NUL cannot be put in an environment, and the record parser drops `__proto__` silently.
const env = z.preprocess(
  (value, ctx) => {
    if (!value || typeof value !== 'object') return value
    for (const key of Object.keys(value)) {
      if (key === '__proto__')
        ctx.issues.push({ code: 'custom', message: 'env may not set "__proto__" (it would be lost); pick another variable name', input: value, path: [key] })
      else if (!/^[^=\0]+$/.test(key))
        ctx.issues.push({
          code: 'custom',
          message: 'an environment variable name must be non-empty and hold no "=" or NUL character',
          input: value,
          path: [key],
        })
    }
    return value
  },
  z.record(
    z.string(),
    z.string().refine((text) => !text.includes('\0'), 'an environment value may not hold a NUL character'),
  ),
)

const ms = (name: string) => z.number().int(`${name} must be a whole number of milliseconds`)

export const Config = strictConfig({
  cwd: z
    .string()
    .min(1, 'cwd must be a directory path')
    .default(() => process.cwd())
    .describe('Default working directory of commands (resolved against process.cwd()); must exist when the plugin starts.'),
  env: env.default({}).describe("Variables added to every command's environment (over the inherited ones)."),
  inheritEnv: z
    .boolean()
    .default(true)
    .describe("Start from this process's environment; false: only PATH, HOME, USER, LANG, LC_ALL, TZ and TMPDIR are kept, plus `env`."),
  defaultTimeoutMs: ms('defaultTimeoutMs')
    .min(1, 'defaultTimeoutMs must be at least 1 ms')
    .max(MAX_TIMER_MS, `defaultTimeoutMs must be at most ${MAX_TIMER_MS} ms`)
    .optional()
    .describe('Deadline for a command that names none; default: none (tool-shell always names one).'),
  maxOutputBytes: z
    .number()
    .int('maxOutputBytes must be a whole number of bytes')
    .min(0, 'maxOutputBytes must be 0 or more')
    .default(1024 * 1024)
    .describe('Per stream, the most output a result keeps (the tail) when a command names no bound.'),
  graceMs: ms('graceMs')
    .min(0, 'graceMs must be 0 or more')
    .max(MAX_TIMER_MS, `graceMs must be at most ${MAX_TIMER_MS} ms`)
    .default(2_000)
    .describe('How long a killed command gets between SIGTERM and SIGKILL.'),
  shell: z
    .string()
    .min(1, 'shell must be a program name or path')
    .optional()
    .describe('The program run as `<shell> -c <command>`; default bash, or sh where bash is not installed.'),
  limits: strictConfig(limitsShape)
    .prefault({})
    .describe('What one command may use (processes, memoryBytes, cpuSeconds, fileSizeBytes, openFiles); a hit ends the whole tree with `limit reached: …`.'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

/** The per-command defaults a provider hands the seam, from the keys shell-local and shell-sandbox share. */
export function commandDefaults(config: Pick<Config, 'defaultTimeoutMs' | 'maxOutputBytes' | 'graceMs' | 'limits'>): ShellDefaults {
  return { timeoutMs: config.defaultTimeoutMs, maxOutputBytes: config.maxOutputBytes, graceMs: config.graceMs, limits: { ...config.limits } }
}

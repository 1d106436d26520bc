/**
 * The seam's config schema, a plain Standard Schema so the seam needs no dependency:
 * it accepts nothing, because a config given here is meant for the provider.
 */
export type Config = Record<string, never>
/** What a user may pass: nothing (an absent config, or an empty object). */
export type ConfigInput = Config | undefined

export interface ConfigIssue {
  message: string
  path?: PropertyKey[]
}
type Outcome = { value: Config; issues?: undefined } | { issues: ConfigIssue[] }

const hint = '@dshkit/fs is only the seam and takes no config; configure the provider instead (for example @dshkit/fs-local: cwd, maxReadBytes)'

export const Config = {
  '~standard': {
    version: 1 as const,
    vendor: 'dshkit',
    validate(value: unknown): Outcome {
      if (value === undefined || value === null) return { value: {} }
      if (typeof value !== 'object' || Array.isArray(value))
        return { issues: [{ message: `${hint}; got ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}` }] }
      const keys = Object.keys(value)
      if (!keys.length) return { value: {} }
      return { issues: keys.map((key) => ({ message: `unknown key "${key}": ${hint}`, path: [key] })) }
    },
  },
}

/** What a seam's config is: nothing, because a config given to a seam is meant for its provider. */
export type SeamConfig = Record<string, never>

export interface SeamConfigIssue {
  message: string
  path?: PropertyKey[]
}
type Outcome = { value: SeamConfig; issues?: undefined } | { issues: SeamConfigIssue[] }

/** A seam's config schema (a plain Standard Schema): it accepts an absent or empty config and names the provider to configure instead. */
export function seamConfig(hint: string) {
  return {
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
}

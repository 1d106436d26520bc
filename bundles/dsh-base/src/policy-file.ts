// permission-policy's `file` names where its rules were written; a loader that read them from a cordis.yml knows.

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value)

/** Sets `file` on a permission-policy config written in the yml (an object) without a `file` of its own; anything else stays. */
function withFile(config: unknown, file: string): unknown {
  if (!isObject(config) || Object.hasOwn(config, 'file')) return config
  return { ...config, file }
}

/**
 * The entries with `file: <path>` filled into permission-policy's config: a `@dshkit/permission-policy`
 * entry's own, and the `permission-policy` part of a `@dshkit/dsh-base` entry. Entries are copied, never changed.
 */
export function fillPolicyFile(entries: unknown[], file: string): unknown[] {
  return entries.map((entry) => {
    if (!isObject(entry)) return entry
    if (entry.name === '@dshkit/permission-policy') {
      const config = withFile(entry.config, file)
      return config === entry.config ? entry : { ...entry, config }
    }
    if (entry.name === '@dshkit/dsh-base' && isObject(entry.config)) {
      const part = entry.config['permission-policy']
      const filled = withFile(part, file)
      return filled === part ? entry : { ...entry, config: { ...entry.config, 'permission-policy': filled } }
    }
    return entry
  })
}

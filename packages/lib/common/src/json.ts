/** A value JSON can carry. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue }

export class NotJsonError extends TypeError {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path || 'value'} is ${what}, which is not JSON`)
  }
}

/** A `__proto__` key: refused because JavaScript cannot hold it as plain data everywhere. */
export class ForbiddenKeyError extends TypeError {
  constructor(
    readonly key: string,
    readonly path: string,
  ) {
    super(`key ${JSON.stringify(key)} at ${path || 'the top level'} is not allowed`)
  }
}

/**
 * Deep-copies a JSON value into frozen plain objects; throws NotJsonError for anything JSON cannot carry
 * and ForbiddenKeyError for a `__proto__` key anywhere. Objects get a null prototype, so every reader
 * (a schema reading `input[key]`, a policy, a hook) sees exactly the own keys the caller sent:
 * `constructor` or `toString` is data when sent and `undefined` when not, never something inherited.
 * `root` names the value in NotJsonError messages (e.g. `arguments`); ForbiddenKeyError names the key path below it.
 */
export function snapshotJson(value: unknown, root = ''): JsonValue {
  return copyJson(value, root, '', new Set())
}

function copyJson(value: unknown, path: string, keys: string, seen: Set<object>): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(path, String(value))
      return value
    case 'object': {
      if (value === null) return null
      if (seen.has(value)) throw new NotJsonError(path, 'a cycle')
      seen.add(value)
      try {
        if (Array.isArray(value)) {
          const copy = new Array<JsonValue>(value.length)
          for (let i = 0; i < value.length; i++) {
            if (value[i] === undefined) throw new NotJsonError(`${path}[${i}]`, 'undefined')
            copy[i] = copyJson(value[i], `${path}[${i}]`, `${keys}[${i}]`, seen)
          }
          return Object.freeze(copy) as JsonValue[]
        }
        const proto = Object.getPrototypeOf(value)
        if (proto !== Object.prototype && proto !== null) {
          throw new NotJsonError(path, `a ${protoName(proto)} object`)
        }
        const copy: Record<string, JsonValue> = Object.create(null)
        // Own keys only: an inherited key is not something the caller sent.
        for (const key of Object.keys(value)) {
          if (key === '__proto__') throw new ForbiddenKeyError(key, keys)
          const item = (value as Record<string, unknown>)[key]
          if (item === undefined) continue
          // A plain assignment: with no prototype there is no setter to hit, and `__proto__` is refused above.
          copy[key] = copyJson(item, path ? `${path}.${key}` : key, keys ? `${keys}.${key}` : key, seen)
        }
        return Object.freeze(copy)
      } finally {
        seen.delete(value)
      }
    }
    default:
      throw new NotJsonError(path, `a ${typeof value}`)
  }
}

function protoName(proto: object): string {
  try {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
    return typeof name === 'string' && name ? name : 'non-plain'
  } catch {
    return 'non-plain'
  }
}

/** Freezes an object graph in place (plain data only); already-frozen parts are skipped. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as any)[key])
  }
  return value
}

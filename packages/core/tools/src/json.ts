import type { JsonValue } from './types.js'

export class NotJsonError extends TypeError {
  constructor(readonly path: string, what: string) {
    super(`${path || 'value'} is ${what}, which is not JSON`)
  }
}

/** Deep-copies a JSON value into frozen plain objects; throws NotJsonError for anything JSON cannot carry. */
export function snapshotJson(value: unknown, path = '', seen = new Set<object>()): JsonValue {
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
            copy[i] = snapshotJson(value[i], `${path}[${i}]`, seen)
          }
          return Object.freeze(copy) as JsonValue[]
        }
        const proto = Object.getPrototypeOf(value)
        if (proto !== Object.prototype && proto !== null) {
          throw new NotJsonError(path, `a ${proto?.constructor?.name ?? 'non-plain'} object`)
        }
        const copy: Record<string, JsonValue> = {}
        for (const key in value) {
          const item = (value as Record<string, unknown>)[key]
          if (item === undefined) continue
          copy[key] = snapshotJson(item, path ? `${path}.${key}` : key, seen)
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

/** Freezes an object graph in place (plain data only); already-frozen parts are skipped. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as any)[key])
  }
  return value
}

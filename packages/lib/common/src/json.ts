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
  return copyJson(value, { root, keys: [], open: [] })
}

/** Where the walk is: the keys down to the current value and the objects open on that path (for cycles). */
interface Walk {
  root: string
  keys: (string | number)[]
  open: object[]
}

/** The current path, built only for an error message: `root.a[0].b` (`withRoot`), or `a[0].b`. */
function pathOf(walk: Walk, withRoot: boolean): string {
  let path = withRoot ? walk.root : ''
  for (const key of walk.keys) path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key
  return path
}

function copyJson(value: unknown, walk: Walk): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(pathOf(walk, true), String(value))
      return value
    case 'object': {
      if (value === null) return null
      // The objects open on the path are few (its depth): a scan is cheaper than a Set per call.
      if (walk.open.includes(value)) throw new NotJsonError(pathOf(walk, true), 'a cycle')
      walk.open.push(value)
      const copy = Array.isArray(value) ? copyArray(value, walk) : copyObject(value, walk)
      walk.open.pop()
      return copy
    }
    default:
      throw new NotJsonError(pathOf(walk, true), `a ${typeof value}`)
  }
}

function copyArray(value: unknown[], walk: Walk): JsonValue[] {
  const copy = new Array<JsonValue>(value.length)
  for (let i = 0; i < value.length; i++) {
    walk.keys.push(i)
    if (value[i] === undefined) throw new NotJsonError(pathOf(walk, true), 'undefined')
    copy[i] = copyJson(value[i], walk)
    walk.keys.pop()
  }
  return Object.freeze(copy) as JsonValue[]
}

function copyObject(value: object, walk: Walk): Record<string, JsonValue> {
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) throw new NotJsonError(pathOf(walk, true), `a ${protoName(proto)} object`)
  const copy: Record<string, JsonValue> = Object.create(null)
  // Own keys only: an inherited key is not something the caller sent.
  for (const key of Object.keys(value)) {
    if (key === '__proto__') throw new ForbiddenKeyError(key, pathOf(walk, false))
    const item = (value as Record<string, unknown>)[key]
    if (item === undefined) continue
    walk.keys.push(key)
    // A plain assignment: with no prototype there is no setter to hit, and `__proto__` is refused above.
    copy[key] = copyJson(item, walk)
    walk.keys.pop()
  }
  return Object.freeze(copy)
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

/**
 * Whether a tool's JSON Schema declares an argument path: `yes`, `open` (cannot tell), or `no` with the names it does
 * declare where the path left the schema (`left`: how many of its keys were still to go, the failing one included).
 */
export type Declared = { kind: 'yes' } | { kind: 'open' } | { kind: 'no'; known: string[]; left: number }

type Schema = Record<string, unknown>

const YES: Declared = { kind: 'yes' }
const OPEN: Declared = { kind: 'open' }
const isSchema = (value: unknown): value is Schema => !!value && typeof value === 'object' && !Array.isArray(value)

/**
 * Walks `keys` (a `when` path such as `options.mode` or `argv.0`) through the schema's `properties` and `items`.
 * A schema that says nothing about its keys (`{}`, a `$ref`, `additionalProperties` other than false-or-absent)
 * is open: anything may be declared. Absent `additionalProperties` counts as closed: tools read the keys they list.
 */
export function declares(schema: unknown, keys: readonly string[], depth = 0): Declared {
  if (schema === false) return { kind: 'no', known: [], left: keys.length }
  if (!isSchema(schema) || depth > 32 || schema.$ref !== undefined) return OPEN
  if (!keys.length) return YES
  const alternatives = [schema.anyOf, schema.oneOf, schema.allOf].filter(Array.isArray).flat()
  if (alternatives.length) {
    const own = withoutAlternatives(schema)
    return combine([...(own ? [own] : []), ...alternatives].map((alt) => declares(alt, keys, depth + 1)))
  }
  const [key, ...rest] = keys
  if (isSchema(schema.properties) || schema.type === 'object') return inObject(schema, key, rest, depth)
  if (schema.items !== undefined || schema.prefixItems !== undefined || schema.type === 'array') return inArray(schema, key, rest, depth)
  // A string, number or boolean has no keys; a schema without a type could be anything.
  return schema.type === undefined ? OPEN : { kind: 'no', known: [], left: keys.length }
}

function inObject(schema: Schema, key: string, rest: string[], depth: number): Declared {
  const properties = isSchema(schema.properties) ? schema.properties : {}
  if (Object.hasOwn(properties, key)) return declares(properties[key], rest, depth + 1)
  const extra = schema.additionalProperties
  if (extra === true || isSchema(extra) || schema.patternProperties !== undefined) return OPEN
  return { kind: 'no', known: Object.keys(properties), left: rest.length + 1 }
}

function inArray(schema: Schema, key: string, rest: string[], depth: number): Declared {
  if (!/^(0|[1-9]\d{0,8})$/.test(key)) return { kind: 'no', known: [], left: rest.length + 1 }
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : []
  const item = Number(key) < prefix.length ? prefix[Number(key)] : schema.items
  return item === undefined ? OPEN : declares(item, rest, depth + 1)
}

/** The schema's own keywords, so `{ properties, anyOf }` is judged as both. */
function withoutAlternatives(schema: Schema): Schema | undefined {
  const { anyOf: _a, oneOf: _o, allOf: _l, ...own } = schema
  return own.properties !== undefined || own.items !== undefined || own.prefixItems !== undefined ? own : undefined
}

function combine(found: Declared[]): Declared {
  if (found.some((d) => d.kind === 'yes')) return YES
  if (found.some((d) => d.kind === 'open')) return OPEN
  const no = found.filter((d) => d.kind === 'no')
  // The alternatives that got furthest down the path say what is declared there.
  const left = Math.min(...no.map((d) => d.left))
  return { kind: 'no', known: [...new Set(no.filter((d) => d.left === left).flatMap((d) => d.known))], left }
}

import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted (by UTF-16 code units) at every level and no whitespace, so equal
 * arguments always give the same text whatever order their keys were written in. Keys are read
 * with Object.keys and written as strings, so `__proto__` is just a key here.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = []
  write(value, parts)
  return parts.join('')
}

function write(value: unknown, out: string[]) {
  if (value === null || value === undefined) return void out.push('null')
  switch (typeof value) {
    case 'string':
      return void out.push(JSON.stringify(value))
    case 'number':
      return void out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null')
    case 'boolean':
      return void out.push(value ? 'true' : 'false')
    case 'object': {
      if (Array.isArray(value)) {
        out.push('[')
        value.forEach((item, i) => {
          if (i) out.push(',')
          write(item, out)
        })
        return void out.push(']')
      }
      out.push('{')
      let first = true
      for (const key of Object.keys(value).sort()) {
        const item = (value as Record<string, unknown>)[key]
        if (item === undefined) continue
        if (!first) out.push(',')
        first = false
        out.push(JSON.stringify(key), ':')
        write(item, out)
      }
      return void out.push('}')
    }
    default:
      throw new TypeError(`arguments hold a ${typeof value}, which is not JSON`)
  }
}

/** sha256 (hex) of the canonical JSON of `args`: what grants and answers bind to. */
export function argumentsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex')
}

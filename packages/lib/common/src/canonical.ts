// A frame of the walk: a value still to write, or literal text (a separator or a closing bracket).
type Step = { value: unknown } | { text: string }

/**
 * JSON with object keys sorted (by UTF-16 code units) at every level and no whitespace, so equal
 * arguments always give the same text whatever order their keys were written in. Keys are read
 * with Object.keys and written as strings, so `__proto__` is just a key here. The walk keeps its
 * own stack, so arguments nested 100,000 deep hash like any others.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = []
  const stack: Step[] = [{ value }]
  while (stack.length) {
    const step = stack.pop()!
    if ('text' in step) {
      out.push(step.text)
      continue
    }
    const item = step.value
    if (item === null || item === undefined) out.push('null')
    else if (typeof item === 'string') out.push(JSON.stringify(item))
    else if (typeof item === 'number') out.push(Number.isFinite(item) ? JSON.stringify(item) : 'null')
    else if (typeof item === 'boolean') out.push(item ? 'true' : 'false')
    else if (Array.isArray(item)) {
      out.push('[')
      stack.push({ text: ']' })
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push({ value: item[i] })
        if (i) stack.push({ text: ',' })
      }
    } else if (typeof item === 'object') {
      const keys = Object.keys(item)
        .filter((key) => (item as Record<string, unknown>)[key] !== undefined)
        .sort()
      out.push('{')
      stack.push({ text: '}' })
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: (item as Record<string, unknown>)[keys[i]] })
        stack.push({ text: `${i ? ',' : ''}${JSON.stringify(keys[i])}:` })
      }
    } else {
      throw new TypeError(`arguments hold a ${typeof item}, which is not JSON`)
    }
  }
  return out.join('')
}

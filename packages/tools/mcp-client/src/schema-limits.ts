/** Bounds on a server's JSON Schema, checked before it is compiled: deeper or larger ones are refused, not tried. */
export const SCHEMA_LIMITS = { depth: 64, nodes: 20_000, stringChars: 1_000_000 }

/**
 * Why `schema` is too large or too deep to compile, or undefined. Walks with its own stack (no recursion, so a
 * 10,000-deep schema cannot overflow ours) and stops at the first limit crossed.
 */
export function schemaProblem(schema: unknown): string | undefined {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'it is not a JSON object'
  const stack: [unknown, number][] = [[schema, 1]]
  let nodes = 0
  let chars = 0
  while (stack.length) {
    const [node, depth] = stack.pop()!
    if (++nodes > SCHEMA_LIMITS.nodes) return `it has more than ${SCHEMA_LIMITS.nodes} nodes`
    if (depth > SCHEMA_LIMITS.depth) return `it nests deeper than ${SCHEMA_LIMITS.depth} levels`
    if (typeof node === 'string') chars += node.length
    if (chars > SCHEMA_LIMITS.stringChars) return `its strings add up to more than ${SCHEMA_LIMITS.stringChars} characters`
    if (!node || typeof node !== 'object') continue
    for (const [key, value] of Object.entries(node)) {
      chars += key.length
      if (key === '$async' && value === true) return '$async schemas are not supported'
      stack.push([value, depth + 1])
    }
  }
  return undefined
}

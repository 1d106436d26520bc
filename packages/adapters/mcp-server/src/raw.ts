/**
 * A `tools/call`'s arguments as sent, when they carry an own top-level `__proto__` key: the SDK's schema
 * silently drops that key, and dshkit refuses it instead (INVALID_ARGS), so the call must see it.
 */
export function protoKeyedArguments(message: unknown): Record<string, unknown> | undefined {
  const m = message as { method?: unknown; params?: { arguments?: unknown } }
  if (m?.method !== 'tools/call') return
  const args = m.params?.arguments
  if (typeof args === 'object' && args !== null && Object.hasOwn(args, '__proto__')) return args as Record<string, unknown>
}

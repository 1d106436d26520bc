/**
 * A thrown value as one line of text. Never throws: a hostile value (a throwing `message` getter or
 * `toString`, a null-prototype object, a Proxy that throws on every trap) gets a generic description.
 */
export function errorMessage(error: unknown): string {
  try {
    return describeThrown(error)
  } catch {
    return `a thrown ${typeof error} that cannot be described`
  }
}

function describeThrown(error: unknown): string {
  if (error instanceof Error) {
    const message: unknown = error.message
    if (typeof message === 'string' && message) return message
    const name: unknown = error.name
    return typeof name === 'string' && name ? name : 'Error'
  }
  if (error !== null && typeof error === 'object') {
    const message = (error as { message?: unknown }).message
    if (typeof message === 'string' && message) return message
  }
  const text: unknown = String(error)
  return typeof text === 'string' ? text : `a thrown ${typeof error}`
}

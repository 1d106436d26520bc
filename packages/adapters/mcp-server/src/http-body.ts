import type { IncomingMessage } from 'node:http'

export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** A POST body is one JSON-RPC message or a batch of them. */
export const messagesOf = (body: unknown): any[] => (Array.isArray(body) ? body : [body])

export function isInitialize(body: unknown): boolean {
  return messagesOf(body).some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize')
}

/** The ids of the requests (not responses, not notifications) a POST carries. */
export function requestIds(body: unknown): (string | number)[] {
  return messagesOf(body).flatMap((m) =>
    typeof m === 'object' && m !== null && 'id' in m && 'method' in m && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : [],
  )
}

export function cancelledIds(body: unknown): (string | number)[] {
  return messagesOf(body).flatMap((m) => {
    const id = m?.method === 'notifications/cancelled' ? m.params?.requestId : undefined
    return typeof id === 'string' || typeof id === 'number' ? [id] : []
  })
}

export async function readBody(req: IncomingMessage): Promise<{ value: unknown } | 'too large' | 'not json'> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) return 'too large'
    chunks.push(chunk as Buffer)
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return 'not json'
  }
}

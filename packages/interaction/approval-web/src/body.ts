/** Reads a JSON body of at most `limit` bytes; a bigger one is refused without reading the rest. */
export async function readJson(body: ReadableStream<Uint8Array> | null, limit: number): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  if (!body) return { ok: false, message: 'the request has no body; send JSON' }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      return { ok: false, message: `the request body is over ${limit} bytes` }
    }
    chunks.push(value)
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return { ok: false, message: 'the request body is not valid JSON' }
  }
}

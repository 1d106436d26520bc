import type { IncomingMessage } from 'node:http'

/** Reads a JSON body of at most `limit` bytes; a bigger one is refused without keeping the rest. */
export function readJson(req: IncomingMessage, limit: number): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      req.off('data', onData)
      req.off('end', onEnd)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size <= limit) return void chunks.push(chunk)
      stop()
      // Drained, not kept: the answer can still be sent on this connection.
      req.resume()
      resolve({ ok: false, message: `the request body is over ${limit} bytes` })
    }
    const onEnd = () => {
      stop()
      if (!size) return resolve({ ok: false, message: 'the request has no body; send JSON' })
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      } catch {
        resolve({ ok: false, message: 'the request body is not valid JSON' })
      }
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.once('error', () => resolve({ ok: false, message: 'the request body was cut off' }))
  })
}

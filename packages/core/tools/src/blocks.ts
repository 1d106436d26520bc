import type { ContentBlock, EmbeddedResource } from './types.js'

// Standard base64 (RFC 4648 §4), padding optional; what MCP's schema accepts for data and blob.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

type Fields = Record<string, unknown>

function str(o: Fields, key: string, what: string): string {
  const v = o[key]
  if (typeof v !== 'string') throw new TypeError(`${what}.${key} must be a string`)
  return v
}

function base64(o: Fields, key: string, what: string): string {
  const v = str(o, key, what)
  if (!BASE64.test(v)) throw new TypeError(`${what}.${key} must be base64`)
  return v
}

function optional(o: Fields, key: string, what: string): { [k: string]: string } {
  return o[key] === undefined ? {} : { [key]: str(o, key, what) }
}

function resource(o: Fields, what: string): EmbeddedResource {
  const r = o.resource as Fields | null
  if (!r || typeof r !== 'object' || Array.isArray(r)) throw new TypeError(`${what}.resource must be an object { uri, text } or { uri, blob }`)
  const w = `${what}.resource`
  const head = { uri: str(r, 'uri', w), ...optional(r, 'mimeType', w) }
  if (r.text !== undefined && r.blob !== undefined) throw new TypeError(`${w} has both text and blob: keep one`)
  if (r.text !== undefined) return { ...head, text: str(r, 'text', w) }
  if (r.blob !== undefined) return { ...head, blob: base64(r, 'blob', w) }
  throw new TypeError(`${w} needs text or blob`)
}

/** Checks and copies one content block; a TypeError names the bad field. */
export function checkBlock(block: unknown, what: string): ContentBlock {
  const o = block as Fields | null
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new TypeError(`${what} is not a content block`)
  switch (o.type) {
    case 'text':
      return { type: 'text', text: str(o, 'text', what) }
    case 'image':
      return { type: 'image', data: str(o, 'data', what), mimeType: str(o, 'mimeType', what) }
    case 'audio':
      return { type: 'audio', data: base64(o, 'data', what), mimeType: str(o, 'mimeType', what) }
    case 'resource':
      return { type: 'resource', resource: resource(o, what) }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: str(o, 'uri', what),
        name: str(o, 'name', what),
        ...optional(o, 'mimeType', what),
        ...optional(o, 'description', what),
      }
    default:
      throw new TypeError(`${what} is not a text, image, audio, resource or resource_link block`)
  }
}

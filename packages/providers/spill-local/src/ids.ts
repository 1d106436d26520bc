import { randomBytes } from 'node:crypto'
import { SpillError, quoteForMessage } from '@dshkit/spill'

/** `sp_` + 24 base32 characters = 120 random bits; nothing else may ever become a path. */
export const ID_PATTERN = /^sp_[a-z2-7]{24}$/

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

export function newId(): string {
  const bytes = randomBytes(15)
  let bits = 0
  let value = 0
  let out = 'sp_'
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return out
}

/** Throws INVALID_ID unless `id` could have been issued by this store; runs before any path is built. */
export function checkId(id: unknown): string {
  if (typeof id === 'string' && id.length === 27 && ID_PATTERN.test(id)) return id
  throw new SpillError(
    'INVALID_ID',
    `invalid spill id ${quoteForMessage(id)}: a spill id is "sp_" followed by 24 characters (a-z, 2-7), exactly as given in the spill notice`,
  )
}

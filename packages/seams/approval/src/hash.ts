import { createHash } from 'node:crypto'
import { canonicalJson } from '@dshkit/common'

export { canonicalJson }

/** sha256 (hex) of the canonical JSON of `args`: what grants and answers bind to. */
export function argumentsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex')
}

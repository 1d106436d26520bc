/** A file's content before a tool changed it, as the `fs/before-change` event (@dshkit/fs) gives it. */
export interface BeforeChange {
  readonly callId: string
  /** sha256 of the content before, `absent` or `unknown`. */
  readonly before: string
  readonly bytes?: Uint8Array
}

// Past this a before-image is not kept for hooks: Write/Edit payloads then say the original is unknown (null).
const MAX_ORIGINAL_BYTES = 8 * 1024 * 1024
// Calls whose post-execute never comes (a crash in between) must not pile up.
const MAX_PENDING = 1000

/**
 * The content each Write/Edit call found, by callId, until its PostToolUse payload takes it: Claude Code sends
 * `originalFile` (null for a new file) and a `structuredPatch` built from it.
 */
export class OriginalFiles {
  // The bytes as the event hands them: decoded only when a payload takes them.
  private readonly pending = new Map<string, Uint8Array | null>()

  readonly remember = (change: BeforeChange): void => {
    if (change.before === 'unknown' || (change.bytes && change.bytes.byteLength > MAX_ORIGINAL_BYTES)) return
    this.pending.set(change.callId, change.before === 'absent' || !change.bytes ? null : change.bytes)
    if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value!)
  }

  /** The original of this call (null: there was none), or undefined when it is not known; forgotten once taken. */
  take(callId: string): string | null | undefined {
    const original = this.pending.get(callId)
    this.pending.delete(callId)
    return original ? Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('utf8') : original
  }
}

/** What a tool is about to change in one file, offered to `fs/before-change` listeners before anything is written. */
export interface FsChange {
  /** The tool changing it: tool-fs's `fs_write` / `fs_edit`, or `shell` when a transactional shell lands a command's change. */
  tool: 'fs_write' | 'fs_edit' | 'shell'
  callId: string
  /** The path as the model wrote it (the host path for a shell change). */
  requested: string
  /** The real path (symlinks resolved) that will be changed. */
  path: string
  /** sha256 (hex) of the content before, `absent`, or `unknown` when it could not be read (`reason` says why). */
  before: string
  /** The content before, exactly the bytes `before` hashes; left out when absent or unknown. */
  bytes?: Uint8Array
  reason?: string
  /** sha256 (hex) of the content the change writes, or `absent` when it deletes the file. */
  after: string
}

declare module 'cordis' {
  interface Events {
    /**
     * Before a tool changes a file (awaited with `ctx.serial`, listeners in order). Throw to veto: the file is not
     * changed and the call fails (or, for a shell change, that change is refused) with the error's message.
     * @dshkit/fs-checkpoint keeps the before-image here.
     */
    'fs/before-change'(change: Readonly<FsChange>): Promise<void>
  }
}

// The validated input of each fs tool, so `isCallOf(exec, 'fs_write')` narrows `exec.input` in a policy.
export interface FsReadInput {
  path: string
  offset?: number
  limit?: number
}
export interface FsWriteInput {
  path: string
  content: string
}
export interface FsEditInput {
  path: string
  old: string
  new: string
  replaceAll?: boolean
}
export interface FsListInput {
  path: string
}

declare module '@dshkit/tools' {
  interface ToolInputs {
    fs_read: FsReadInput
    fs_write: FsWriteInput
    fs_edit: FsEditInput
    fs_list: FsListInput
  }
}

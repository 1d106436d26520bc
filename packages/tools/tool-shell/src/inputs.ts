// The validated input of the shell tool, so `isCallOf(exec, 'shell')` narrows `exec.input` in a policy.
export interface ShellInput {
  command: string
  cwd?: string
  timeoutMs?: number
  description?: string
  background?: boolean
}

declare module '@dshkit/tools' {
  interface ToolInputs {
    shell: ShellInput
  }
}

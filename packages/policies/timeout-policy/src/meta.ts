declare module '@dshkit/tools' {
  interface ToolMeta {
    /** The deadline that passed. */
    timeoutMs?: number
    /** The body did not stop and was left running. */
    abandoned?: true
  }
}

export {}

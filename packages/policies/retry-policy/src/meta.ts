declare module '@dshkit/tools' {
  interface ToolMeta {
    /** How many times the body ran. */
    attempts?: number
  }
}

export {}

declare module '@dshkit/tools' {
  interface ToolMeta {
    /** How many secrets were replaced. */
    redactions?: number
  }
}

export {}

/** `meta.capped`: the single-result cap cut the content. */
export interface CappedMeta {
  chars: number
  omittedChars: number
}

declare module '@dshkit/tools' {
  interface ToolMeta {
    capped?: CappedMeta
  }
}

/** `meta.spill`: the output was stored and previewed, or it could not be kept. */
export type SpillMeta =
  | { id: string; bytes: number; shownBytes: number; omittedBytes: number; evicted?: string[] }
  | { lost: true; error: string; bytes: number; shownBytes: number; omittedBytes: number }

declare module '@dshkit/tools' {
  interface ToolMeta {
    spill?: SpillMeta
  }
}

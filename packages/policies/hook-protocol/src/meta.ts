import type { JsonValue } from '@dshkit/common'
// Names the augmented module: nothing else in this package imports it.
import type {} from '@dshkit/tools'

/** `meta.hooks` (hooks-claude-code, hooks-codex): each hook command's JSON answer, by its source name. */
export type HooksMeta = Record<string, JsonValue>

declare module '@dshkit/tools' {
  interface ToolMeta {
    hooks?: HooksMeta
  }
}

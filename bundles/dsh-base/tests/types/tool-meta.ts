// Type-level tests, checked by `tsc -p tsconfig.test.json`: each plugin adds its own `meta` keys to ToolMeta.
import type { ToolExecutionResult, ToolMeta } from '@dshkit/tools'
import type {} from '@dshkit/dsh-base'

export function metaOf(result: ToolExecutionResult) {
  const meta = result.meta as ToolMeta | undefined
  const spilled: string | undefined = meta?.spill && 'id' in meta.spill ? meta.spill.id : undefined
  const capped: number | undefined = meta?.capped?.omittedChars
  const attempts: number | undefined = meta?.attempts
  const timeoutMs: number | undefined = meta?.timeoutMs
  const hooks = meta?.hooks
  // @ts-expect-error a key no plugin declares is not part of ToolMeta
  meta?.notDeclared
  return { spilled, capped, attempts, timeoutMs, hooks }
}

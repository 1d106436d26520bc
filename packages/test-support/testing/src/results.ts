import type { ToolExecutionResult } from '@dshkit/tools'

/** The text a model sees: every text block, joined by newlines (images left out). */
export function textOf(result: Pick<ToolExecutionResult, 'content'>): string {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n')
}

/** The value of a result that must have succeeded; a failure throws its code and message, so the test says why. */
// biome-ignore lint/suspicious/noShadowRestrictedNames: the test kit's public name; it is a module export, not an override of Object.prototype.valueOf
export function valueOf<T = any>(result: ToolExecutionResult): T {
  if (result.isError) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`)
  return result.value as T
}

import { joinText, type ToolExecutionResult } from '@dshkit/tools'
import { modelContent } from '@dshkit/agent-loop'

/** What the Agents SDK sends the model for a tool call: text alone, or text and images. */
export type AgentToolOutput = string | ({ type: 'text'; text: string } | { type: 'image'; image: { data: string; mediaType: string } })[]

/**
 * A failed dshkit result, thrown so the SDK takes its error path (a failed span); the tools' `errorFunction`
 * gives the model `String(error)`: exactly dshkit's text, `Error: <message>`.
 */
export class DshkitToolError extends Error {
  override name = 'DshkitToolError'
  constructor(readonly result: ToolExecutionResult & { isError: true }) {
    super(result.error.message)
  }
  override toString(): string {
    return joinText(modelContent(this.result))
  }
}

/** Text alone stays a string; images go as the SDK's image outputs, which vision models read. */
export function agentOutput(result: ToolExecutionResult): AgentToolOutput {
  const blocks = modelContent(result)
  if (blocks.every((block) => block.type === 'text')) return joinText(blocks)
  return blocks.map((block) =>
    block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', image: { data: block.data, mediaType: block.mimeType } },
  )
}

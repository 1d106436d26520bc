import { joinText, type ToolExecutionResult } from '@dshkit/tools'
import { modelContent, textAndImages } from '@dshkit/agent-loop'

/** What the Agents SDK sends the model for a tool call: text alone, or text and images. */
export type AgentToolOutput = string | ({ type: 'text'; text: string } | { type: 'image'; image: { data: string; mediaType: string } })[]

/** Text alone stays a string; images go as the SDK's image outputs, which vision models read; other blocks as text describing them. */
export function agentOutput(result: ToolExecutionResult): AgentToolOutput {
  const blocks = textAndImages(modelContent(result))
  if (blocks.every((block) => block.type === 'text')) return joinText(blocks)
  return blocks.map((block) =>
    block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', image: { data: block.data, mediaType: block.mimeType } },
  )
}

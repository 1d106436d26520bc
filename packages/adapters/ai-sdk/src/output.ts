import { joinText, type ContentBlock, type JsonValue, type ToolExecutionResult, type ToolStop } from '@dshkit/tools'
import { modelContent, textAndImages } from '@dshkit/agent-loop'

/** What a dshkit tool's `execute` resolves with in the AI SDK (the UI's `output`); `toModelOutput` renders it. */
export interface DshkitToolOutput {
  /** What the model reads: the result's content, then its additional contexts' content. */
  content: ContentBlock[]
  value: JsonValue
  /** Set when the batch concluded the turn; `turnConcluded` stops the loop on it. */
  concludesTurn?: true
  /** Set when a result of the batch stopped the session (a hook's `continue: false`); `turnConcluded` stops on it too. */
  stop?: ToolStop
}

type ModelOutput = { type: 'text'; value: string } | { type: 'content'; value: ({ type: 'text'; text: string } | ModelFile)[] }
type ModelFile = { type: 'file'; mediaType: string; data: { type: 'data'; data: string } }

export function toolOutput(result: ToolExecutionResult & { isError: false }, concludesTurn: boolean, stop: ToolStop | undefined): DshkitToolOutput {
  const output: DshkitToolOutput = { content: modelContent(result), value: result.value }
  if (concludesTurn) output.concludesTurn = true
  if (stop) output.stop = stop
  return output
}

/** Text alone stays text; images go as media (file parts with their type), which vision models read; other blocks as text describing them. */
export function toModelOutput({ output }: { output: DshkitToolOutput }): ModelOutput {
  const content = textAndImages(output.content)
  if (content.every((block) => block.type === 'text')) return { type: 'text', value: joinText(content) }
  return {
    type: 'content',
    value: content.map((block) =>
      block.type === 'text' ? { type: 'text', text: block.text } : { type: 'file', mediaType: block.mimeType, data: { type: 'data', data: block.data } },
    ),
  }
}

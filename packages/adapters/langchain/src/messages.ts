import { type BaseMessage, ToolMessage } from '@langchain/core/messages'
import { modelContent, textAndImages } from '@dshkit/agent-loop'
import { joinText, type ToolExecutionResult, type ToolStop } from '@dshkit/tools'

/** One call's result as a ToolMessage: `status: 'error'` for any failure; text alone as a string, images as image blocks, other blocks as text describing them. */
export function toolMessage(result: ToolExecutionResult, toolCallId: string, name: string): ToolMessage {
  const blocks = textAndImages(modelContent(result))
  const content = blocks.every((block) => block.type === 'text')
    ? joinText(blocks)
    : blocks.map((block) =>
        block.type === 'text' ? { type: 'text' as const, text: block.text } : { type: 'image' as const, mimeType: block.mimeType, data: block.data },
      )
  return new ToolMessage({
    tool_call_id: toolCallId,
    name,
    content,
    status: result.isError ? 'error' : 'success',
    // The whole dshkit result (value, error code, meta) for the app; the model reads only `content`.
    artifact: result,
  })
}

/**
 * The stop a dshkit result asked for (a hook's `continue: false`) among these messages, if any: the app ends the
 * turn on it instead of calling the model again (the later calls of that batch were not run).
 */
export function sessionStop(messages: readonly BaseMessage[]): ToolStop | undefined {
  for (const message of messages) {
    const stop = ToolMessage.isInstance(message) ? (message.artifact as Partial<ToolExecutionResult> | undefined)?.stop : undefined
    if (stop) return stop
  }
  return undefined
}

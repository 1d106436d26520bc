import { defineTool } from '@dshkit/tools'
import { z } from 'zod'

/**
 * A tool (`big` unless named) that returns, or throws, whatever text a test hands it: large or odd
 * outputs without sending them through the arguments. `argsFor(text)` gives the arguments for one call.
 */
export function textOutputTool(name = 'big') {
  const outputs = new Map<string, string>()
  let calls = 0
  const tool = defineTool({
    name,
    description: 'returns a stored text',
    parameters: z.object({ key: z.string(), fail: z.boolean().optional() }),
    execute({ key, fail }) {
      const text = outputs.get(key) ?? ''
      if (fail) throw new Error(text)
      return text
    },
  })
  const argsFor = (text: string, fail = false) => {
    const key = `k${++calls}`
    outputs.set(key, text)
    return { key, fail }
  }
  return { tool, argsFor }
}

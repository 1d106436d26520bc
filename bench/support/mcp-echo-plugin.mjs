// The `echo` tool bench/mcp.ts serves through `dshkit mcp serve` (loaded from bench/support/mcp-cordis.yml).
import { z } from 'zod'

export const name = 'bench-echo'
export const inject = ['tools']
export const apply = (ctx) => {
  ctx.tools.register({ name: 'echo', description: 'Echoes text.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
}

// The baseline for bench/mcp.ts: the same `echo` tool on a bare SDK McpServer over stdio, nothing in between.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'bare', version: '1.0.0' })
server.registerTool('echo', { description: 'Echoes text.', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
await server.connect(new StdioServerTransport())
process.stdin.once('end', () => process.exit(0))

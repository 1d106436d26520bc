import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { boot, type PluginEntry } from '@dshkit/testing'
import McpClient, { type ConfigInput } from '@dshkit/mcp-client'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))

/** A fixture server (tests/fixtures/<name>.mjs), started with this Node. */
export function fixture(name: string, env?: Record<string, string>, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [join(here, 'fixtures', `${name}.mjs`)], env, ...extra }
}

/** The installed bin of a registry server (run through node, never npx). */
export function registryServer(
  pkg: '@modelcontextprotocol/server-everything' | '@modelcontextprotocol/server-filesystem',
  args: string[],
  extra: Record<string, unknown> = {},
) {
  const main = require.resolve(`${pkg}/package.json`)
  const bin = (require(main) as { bin: Record<string, string> }).bin
  return { command: process.execPath, args: [join(dirname(main), Object.values(bin)[0]), ...args], ...extra }
}

/** Tools runtime + mcp-client (after any `before` plugins), up once every server answered its first start. */
export async function bootMcp(config: ConfigInput, before: PluginEntry[] = []) {
  return boot({ plugins: [...before, [McpClient, config]], timeoutMs: 20_000 })
}

export const textOf = (result: { content: { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? `[${block.type}]`).join('\n')

import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools, { type ToolExecutionResult } from '@dshkit/tools'
import { expect } from 'vitest'
// Sibling packages, by source: the sandbox is tested against the real provider and the real tools.
import LocalFs from '@dshkit/fs-local'
import ToolFs from '@dshkit/tool-fs'
import Sandbox from '../src/index.js'

export const SECRET = 'CANARY-SECRET-4c1f'

/**
 * A temp tree: `root/` is the sandbox root, `outside/` holds the canary, `ro/` is an extra
 * read-only root; `root/` is seeded with every kind of symlink the attack corpus needs.
 */
export async function makeTree() {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-sandbox-')))
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  const ro = join(base, 'ro')
  const files: Record<string, string> = {
    'outside/canary.txt': SECRET,
    'outside/sub/deep.txt': SECRET,
    'ro/doc.txt': 'read-only doc',
    'root/file.txt': 'inside file',
    'root/env.txt': 'not a dotenv',
    'root/src/app.ts': 'export const app = 1\n',
    'root/src/.gitignore': 'lib\n',
    'root/work/notes.txt': 'work notes',
    'root/vendor/lib.js': 'vendored',
    'root/.env': `TOKEN=${SECRET}`,
    'root/config/.env.local': `TOKEN=${SECRET}`,
    'root/.git/config': '[core]',
    'root/.git/hooks/README': 'hooks',
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(base, path, '..'), { recursive: true })
    await writeFile(join(base, path), content)
  }
  const links: Record<string, string> = {
    'root/link-in-file': 'src/app.ts',
    'root/link-in-dir': 'src',
    'root/chain-in': 'link-in-dir',
    'root/link-out-file': join(outside, 'canary.txt'),
    'root/link-out-dir': '../outside',
    'root/chain-1': 'chain-2',
    'root/chain-2': 'src/../chain-3',
    'root/chain-3': '../outside/canary.txt',
    'root/dangling-out': join(outside, 'created-through-dangling.txt'),
    'root/innocent': '.env',
  }
  for (const [path, target] of Object.entries(links)) await symlink(target, join(base, path))
  return { base, root, outside, ro, at: (...parts: string[]) => join(root, ...parts) }
}

export type Tree = Awaited<ReturnType<typeof makeTree>>

export async function setup(config: Record<string, unknown> | ((tree: Tree) => Record<string, unknown>) = {}, prepare?: (tree: Tree) => Promise<unknown>) {
  const tree = await makeTree()
  await prepare?.(tree)
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin(LocalFs, { cwd: tree.root })
  await ctx.plugin(ToolFs)
  const sandboxConfig = typeof config === 'function' ? config(tree) : { roots: [tree.root], ...config }
  const sandbox = ctx.plugin(Sandbox, sandboxConfig)
  await sandbox
  let n = 0
  const run = (name: string, args: unknown) => ctx.tools.execute({ callId: `c${++n}`, name, arguments: args })
  return { ...tree, ctx, sandbox, run }
}

/** Every file, directory and link under `dir` with its content or target: what "nothing changed" compares. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (path: string, rel: string) => {
    for (const name of (await readdir(path)).sort()) {
      const full = join(path, name)
      const key = rel ? `${rel}/${name}` : name
      const s = await lstat(full)
      if (s.isSymbolicLink()) out[key] = `-> ${await readlink(full)}`
      else if (s.isDirectory()) {
        out[key] = `dir ${(s.mode & 0o7777).toString(8)}`
        await walk(full, key)
      } else out[key] = `${(s.mode & 0o7777).toString(8)} ${await readFile(full, 'utf8')}`
    }
  }
  await walk(dir, '')
  return out
}

export function textOf(result: ToolExecutionResult) {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

/** A pre-execute denial by fs-sandbox whose reason names the path and the rule. */
export function expectDenied(result: ToolExecutionResult, path: string, rule: string) {
  expect(result.isError).toBe(true)
  if (!result.isError) return
  expect(result.error).toMatchObject({ code: 'DENIED', source: 'fs-sandbox' })
  expect(result.error.message).toContain(JSON.stringify(path))
  expect(result.error.message).toContain(rule)
  expect(textOf(result)).not.toContain(SECRET)
}

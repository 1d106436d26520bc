import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { boot, tempDir } from '@dshkit/testing'
import ShellSandbox, { type ConfigInput, type SandboxShell } from '../src/index.js'

export const SECRET = 'CANARY-SECRET-7d2e'

/**
 * A temp tree: `root/` is the sandbox root (with a read-only `root/ro/` inside it), `outside/`
 * holds a canary outside every root; `root/` has deny-glob files and a symlink pointing outside.
 */
export async function makeTree() {
  const base = await tempDir('dshkit-shell-sandbox-test-')
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  const files: Record<string, string> = {
    'outside/canary.txt': SECRET,
    'root/file.txt': 'inside file',
    'root/ro/doc.txt': 'read-only doc',
    'root/.env': `TOKEN=${SECRET}`,
    'root/config/.env.local': `TOKEN=${SECRET}`,
    'root/.git/config': `[secret] ${SECRET}`,
    'root/src/.git/HEAD': `nested ${SECRET}`,
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(base, path, '..'), { recursive: true })
    await writeFile(join(base, path), content)
  }
  await symlink(outside, join(root, 'out-link'))
  await symlink(join(outside, 'canary.txt'), join(root, 'canary-link'))
  return { base, root, outside, ro: join(root, 'ro') }
}

/** A context with shell-sandbox up on `root` (with `root/ro` read-only); the real bubblewrap. */
export async function bootSandbox(root: string, config: ConfigInput = {}) {
  const booted = await boot({ plugins: [[ShellSandbox, { roots: [root], readOnlyRoots: [join(root, 'ro')], ...config }]] })
  return { ...booted, shell: booted.ctx.get('shell') as SandboxShell }
}

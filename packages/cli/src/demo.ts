import { cp, mkdtemp, mkdir, writeFile, access } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The bundled demo: packed next to lib/ as demo/, or examples/demo/ in the repository. */
async function demoSource(): Promise<string> {
  // The repository's copy first: packing creates and removes ../demo in place.
  for (const candidate of ['../../../examples/demo', '../demo']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url))
    try {
      await access(join(dir, 'calls.jsonl'))
      return dir
    } catch {}
  }
  throw new Error('the bundled demo is missing from this installation; pass a CALLS.jsonl file')
}

/** Copies the demo workspace into a fresh temp dir (so a run never touches the source) and adds its big log. */
export async function prepareDemo() {
  const source = await demoSource()
  const base = await mkdtemp(join(tmpdir(), 'dshkit-demo-'))
  const root = join(base, 'workspace')
  await cp(join(source, 'workspace'), root, { recursive: true })
  await mkdir(join(root, 'logs'), { recursive: true })
  await writeFile(join(root, 'logs', 'build.log'), buildLog())
  // Config and calls stay where they are installed, so the demo plugin resolves its imports.
  return { root, calls: join(source, 'calls.jsonl'), config: join(source, 'cordis.yml'), log: join(base, 'session.jsonl') }
}

/** A 2,000-line build log (~150 KB) with the one error near the end, as real logs have it. */
function buildLog(): string {
  const lines: string[] = []
  for (let i = 1; i <= 2000; i++) {
    const step = ['compile', 'link', 'test', 'bundle'][i % 4]
    lines.push(
      i === 1987
        ? `[${String(i).padStart(4, '0')}] ERROR test: auth/session.spec.ts expected token to be refreshed — got 401 (Unauthorized)`
        : `[${String(i).padStart(4, '0')}] info  ${step}: module-${(i * 7919) % 997} done in ${(i * 37) % 400} ms — résumé ✓`,
    )
  }
  return lines.join('\n') + '\n'
}

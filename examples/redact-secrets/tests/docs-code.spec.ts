import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { describe, expect, test } from 'vitest'
import DshBase from '@dshkit/dsh-base'

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..')
const MARKED = /<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```\n/g

async function docs() {
  const names = (await readdir(join(repo, 'docs'))).filter((name) => name.endsWith('.md'))
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(repo, 'docs', name), 'utf8') })))
}

describe('code shown in docs/', () => {
  test('every block marked <!-- file: path --> is that file, verbatim', async () => {
    const shown: string[] = []
    for (const { name, text } of await docs()) {
      for (const [, path, code] of text.matchAll(MARKED)) {
        shown.push(path)
        const actual = await readFile(join(repo, path), 'utf8')
        expect(code, `docs/${name} shows ${path}; update the doc or the file so they agree`).toBe(actual.endsWith('\n') ? actual : `${actual}\n`)
      }
    }
    expect(shown.length).toBeGreaterThanOrEqual(8)
  })

  test('every plugin and provider written for the docs is shown in one', async () => {
    const all = (await docs()).map((doc) => doc.text).join('\n')
    for (const dir of ['examples/redact-secrets/tests/authoring', 'examples/spill-memory-provider/tests/providers']) {
      for (const file of (await readdir(join(repo, dir))).filter((name) => !name.endsWith('.spec.ts') || dir.endsWith('authoring'))) {
        expect(all, `${dir}/${file} is not shown in docs/`).toContain(`<!-- file: ${dir}/${file} -->`)
      }
    }
  })
})

test('docs/pipeline.md lists the hooks of a booted dsh-base in their real order', async () => {
  const ctx = new Context()
  await ctx.plugin(DshBase, {
    'permission-policy': { rules: [{ tool: 'fs_write', decision: 'ask' }, { tool: 'fs_edit', decision: 'deny' }] },
    'user-approval': { responder: 'headless' },
  } as any)
  for (let i = 0; i < 100 && !ctx.get('loop'); i++) await new Promise((resolve) => setImmediate(resolve))
  const text = await readFile(join(repo, 'docs/pipeline.md'), 'utf8')
  const section = text.slice(text.indexOf('### The order in dsh-base'))
  for (const event of ['tools/pre-execute', 'tools/execute', 'tools/post-execute']) {
    const row = section.split('\n').find((line) => line.startsWith(`| \`${event}\` |`))
    const documented = row?.split('|')[2].split(/,(?![^(]*\))/).map((part) => part.trim().match(/^[a-z-]+/)?.[0]).filter((name) => name && name !== 'then')
    const actual = ctx.events._hooks[event]?.map((hook) => hook.ctx.fiber.name)
    expect(documented, `docs/pipeline.md, the ${event} row`).toEqual(actual)
  }
})

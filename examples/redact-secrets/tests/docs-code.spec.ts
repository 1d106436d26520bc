import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, describe, expect, test } from 'vitest'
import DshBase from '@dshkit/dsh-base'
import { cleanup, onCleanup, plug } from '@dshkit/testing'

afterEach(cleanup)

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

/**
 * The order cordis will call each event's listeners in, recorded through its public `internal/listener`
 * event (no private fields): a `prepend` registration goes outside the others, any other one inside.
 */
function recordListenerOrder(ctx: Context, events: readonly string[]) {
  const order = new Map<string, string[]>(events.map((event) => [event, []]))
  ctx.on(
    'internal/listener',
    function (this: Context, name: string, _listener: unknown, options: unknown) {
      const list = order.get(name)
      if (!list) return
      const prepend = typeof options === 'object' ? (options as { prepend?: boolean } | null)?.prepend : options
      list[prepend ? 'unshift' : 'push'](this.fiber.name)
    },
    { prepend: true },
  )
  return order
}

test('docs/pipeline.md lists the hooks of a booted dsh-base in their real order', async () => {
  const events = ['tools/pre-execute', 'tools/execute', 'tools/post-execute']
  const ctx = new Context()
  const order = recordListenerOrder(ctx, events)
  const fiber = await plug(ctx, DshBase, {
    'permission-policy': {
      rules: [
        { tool: 'fs_write', decision: 'ask' },
        { tool: 'fs_edit', decision: 'deny' },
      ],
    },
    'user-approval': { responder: 'headless' },
  })
  onCleanup(() => fiber.dispose())
  const text = await readFile(join(repo, 'docs/pipeline.md'), 'utf8')
  const section = text.slice(text.indexOf('### The order in dsh-base'))
  for (const event of events) {
    const row = section.split('\n').find((line) => line.startsWith(`| \`${event}\` |`))
    const documented = row
      ?.split('|')[2]
      .split(/,(?![^(]*\))/)
      .map((part) => part.trim().match(/^[a-z-]+/)?.[0])
      .filter((name) => name && name !== 'then')
    expect(documented, `docs/pipeline.md, the ${event} row`).toEqual(order.get(event))
  }
})

test('the redact-secrets README shows its listener as src/index.ts has it', async () => {
  const readme = await readFile(join(repo, 'examples/redact-secrets/README.md'), 'utf8')
  const shown = readme.match(/```ts\n(ctx\.on\('tools\/post-execute'[\s\S]*?)```\n/)?.[1]
  expect(shown, "the README shows the listener in a ts block starting with ctx.on('tools/post-execute'").toBeDefined()
  const source = await readFile(join(repo, 'examples/redact-secrets/src/index.ts'), 'utf8')
  const indented = shown!
    .trimEnd()
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n')
  expect(source, 'update the README block or src/index.ts so they agree').toContain(indented)
})

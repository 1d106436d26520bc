import { expect, test } from 'vitest'
import { z } from 'zod'
import type { Context } from 'cordis'
import { defineTool, type JsonCompatible, type ToolDefinition } from '../src/index.js'
import { call, plug, setup } from './helpers.js'

/** An interface has no implicit index signature; a tool may still return one. */
interface WordCount {
  path: string
  words: number
  tags: string[]
  note?: string
}

const parameters = z.object({ path: z.string() })

test('a tool whose value type is an interface registers, runs and renders typed', async () => {
  const { ctx } = await setup()
  const count = defineTool<typeof parameters, WordCount>({
    name: 'count',
    description: 'Counts words.',
    parameters,
    execute: ({ path }) => ({ path, words: 2, tags: ['a'] }),
    render: (value) => [{ type: 'text', text: `${value.path}: ${value.words}` }],
  })
  await plug(ctx, 'p', (ctx) => {
    ctx.tools.register(count)
    // register infers the interface from an inline execute too
    ctx.tools.register({
      name: 'inline',
      description: 'Returns an interface value.',
      parameters,
      execute: ({ path }): WordCount => ({ path, words: 0, tags: [] }),
    })
  })
  const result = await ctx.tools.execute(call('count', { path: 'a.txt' }))
  expect(result).toMatchObject({ isError: false, value: { path: 'a.txt', words: 2, tags: ['a'] }, content: [{ type: 'text', text: 'a.txt: 2' }] })
})

// Never called: these only have to fail type-checking (`npx tsc -p tsconfig.tests.json`).
export function nonJsonValuesAreCompileErrors() {
  interface WithFunction {
    run: () => void
  }
  interface WithDate {
    at: Date
  }
  interface WithBigint {
    size: bigint
  }
  interface Nested {
    inner: { items: Array<{ when: Date }> }
  }
  // @ts-expect-error a function is not JSON
  defineTool<typeof parameters, WithFunction>({ name: 'f', description: '', parameters, execute: () => ({ run: () => {} }) })
  // @ts-expect-error a Date is not JSON (it would arrive as a string)
  defineTool<typeof parameters, WithDate>({ name: 'd', description: '', parameters, execute: () => ({ at: new Date() }) })
  // @ts-expect-error a bigint is not JSON
  defineTool<typeof parameters, WithBigint>({ name: 'b', description: '', parameters, execute: () => ({ size: 1n }) })
  // @ts-expect-error a Date deep inside is caught too
  defineTool<typeof parameters, Nested>({ name: 'n', description: '', parameters, execute: () => ({ inner: { items: [] } }) })
  // @ts-expect-error an inferred value type is checked as well
  defineTool({ name: 'i', description: '', parameters, execute: () => ({ at: new Date() }) })
  // @ts-expect-error undefined inside an array is refused at run time, so at compile time too
  defineTool({ name: 'u', description: '', parameters, execute: (): Array<string | undefined> => [] })
  const compatible: JsonCompatible<WordCount> = { path: 'p', words: 1, tags: [] }
  return compatible
}

export function recursiveInterfacesAreFine() {
  interface Tree {
    label: string
    children: Tree[]
  }
  return defineTool<typeof parameters, Tree>({ name: 't', description: '', parameters, execute: () => ({ label: 'root', children: [] }) })
}

export function registeringADefinedToolKeepsItsInferredValue(ctx: Context) {
  // register()'s own generics must not re-infer the value of a defineTool() call passed to it.
  const echo: ToolDefinition<{ path: string }, string> = defineTool({ name: 'e', description: '', parameters, execute: ({ path }) => path })
  ctx.tools.register(defineTool({ name: 'e', description: '', parameters, execute: ({ path }) => (path.length, path) }))
  return echo
}

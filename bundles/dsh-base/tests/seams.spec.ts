import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import SpillLocal, { LocalSpill } from '@dshkit/spill-local'
import { MemorySessionStore, provideSession } from '@dshkit/session'
import DshBase, { PluginStartError, SeamConflictError } from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-seams-')))
  await writeFile(join(dir, 'notes.md'), 'hello\n')
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const base = () => ({ 'fs-sandbox': { roots: [dir] }, 'user-approval': { responder: 'headless' as const } })

/** A spill store of the user's own: a real LocalSpill, marked, under its own plugin name, after an async start. */
class MySpillStore extends LocalSpill {
  mine = true
}
const MySpill = {
  name: 'my-spill',
  apply: async (ctx: Context) => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    new MySpillStore(ctx, SpillLocal.Config.parse({}))
  },
}

test('right after `await ctx.plugin(DshBase)` every service it provides is up and usable', async () => {
  await ctx.plugin(DshBase, base())
  const { results } = await ctx.loop.executeToolCalls([{ callId: 'r', name: 'fs_read', arguments: { path: 'notes.md' } }])
  expect(results[0].isError).toBe(false)
  expect(ctx.session.events().map((event) => event.type)).toEqual(['tool/call', 'fs/observed', 'tool/result'])
  expect(ctx.tools.get('fs_read')).toBeDefined()
  expect((await ctx.fs.stat('notes.md')).size).toBe(6)
  const { id } = await ctx.spill.put('spilled text')
  expect((await ctx.spill.read(id)).text).toBe('spilled text')
  expect(ctx.approval).toBeDefined()
  expect(ctx.toolResultPruner).toBeDefined()
})

test('providers.spill plugs your spill store instead of spill-local; the await waits for its async start', async () => {
  await ctx.plugin(DshBase, { ...base(), providers: { spill: MySpill } })
  expect((ctx.spill as MySpillStore).mine).toBe(true)
  expect(ctx.tools.get('spill_read')).toBeDefined()
})

test('providers.<seam> takes { plugin, config } and passes the config to your plugin', async () => {
  const seen: unknown[] = []
  const MySession = {
    name: 'my-session',
    apply: async (ctx: Context, config: unknown) => {
      seen.push(config)
      await provideSession(ctx, new MemorySessionStore())
    },
  }
  await ctx.plugin(DshBase, { ...base(), providers: { session: { plugin: MySession, config: { tenant: 't1' } } } })
  expect(seen).toEqual([{ tenant: 't1' }])
  await ctx.loop.executeToolCalls([{ callId: 's', name: 'fs_list', arguments: { path: '.' } }])
  expect(ctx.session.events()).toHaveLength(2)
})

test('a provider that cannot start rejects the await, naming it, and leaves nothing running', async () => {
  const Broken = {
    name: 'broken-spill',
    apply: () => {
      throw new Error('no bucket')
    },
  }
  const error = await rejection(ctx.plugin(DshBase, { ...base(), providers: { spill: Broken } }))
  expect(error).toBeInstanceOf(PluginStartError)
  expect(error.message).toBe('plugin "broken-spill" failed to start: no bucket')
  for (const service of ['tools', 'loop', 'fs', 'session', 'spill']) expect(ctx.get(service), service).toBeUndefined()
})

test("'spill-local': false plus a plugin of your own is the other way to swap the provider", async () => {
  await ctx.plugin(MySpill)
  await ctx.plugin(DshBase, { ...base(), 'spill-local': false })
  expect((ctx.spill as MySpillStore).mine).toBe(true)
})

test('your spill store plugged beside dsh-base with spill-local still on: dsh-base rejects, naming the seam, both plugins and the key', async () => {
  ctx.plugin(MySpill)
  // Plugged without awaiting, as a cordis.yml or a quick script does: the two race for the seam.
  await new Promise((resolve) => setTimeout(resolve, 50))
  const error = await rejection(ctx.plugin(DshBase, base()))
  expect(error).toBeInstanceOf(SeamConflictError)
  expect(error).toMatchObject({ seam: 'spill', plugins: ['my-spill', 'spill-local'] })
  expect(error.message).toBe(
    'two providers for the "spill" seam: "my-spill" and dsh-base\'s "spill-local"; to use "my-spill", ' +
      'set "spill-local": false in dsh-base\'s config, or pass it as dsh-base\'s providers.spill',
  )
  expect(ctx.get('loop')).toBeUndefined()
})

test('your spill store plugged after dsh-base with spill-local still on: its await rejects with the same clear message', async () => {
  await ctx.plugin(DshBase, base())
  const error = await rejection(ctx.plugin(MySpill))
  expect(error.message).toBe(
    'two providers for the "spill" seam: "my-spill" and dsh-base\'s "spill-local"; to use "my-spill", ' +
      'set "spill-local": false in dsh-base\'s config, or pass it as dsh-base\'s providers.spill',
  )
  expect((ctx.spill as MySpillStore).mine).toBeUndefined()
})

test('a second session provider names the session keys to turn off', async () => {
  const MySession = { name: 'my-session', apply: (ctx: Context) => provideSession(ctx, new MemorySessionStore()) }
  await ctx.plugin(MySession)
  const error = await rejection(ctx.plugin(DshBase, base()))
  expect(error.message).toMatch(
    /^two providers for the "session" seam: "my-session" and dsh-base's "session"; to use "my-session", set "session": false and leave out "log" in dsh-base's config, or pass it as dsh-base's providers\.session$/,
  )
})

test("configuring dsh-base's own provider of a seam you replace is a ValidationError at that key", async () => {
  await expect(ctx.plugin(DshBase, { ...base(), providers: { spill: MySpill }, 'spill-local': { ttlMs: 5 } })).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringMatching(/configures dsh-base's own spill provider, which providers\.spill replaces; remove "spill-local" or set it to false/),
  })
  await expect(ctx.plugin(DshBase, { ...base(), providers: { session: MySpill }, log: join(dir, 'x.jsonl') })).rejects.toThrow(/remove "log"/)
  await expect(ctx.plugin(DshBase, { ...base(), providers: { spill: 'spill-memory' } } as any)).rejects.toThrow(
    /must be a cordis plugin.*providers\.spill|providers\.spill.*must be a cordis plugin/,
  )
  await expect(ctx.plugin(DshBase, { ...base(), providers: { spil: MySpill } } as any)).rejects.toThrow(
    /did you mean "spill"\?.*providers\.spil|providers\.spil.*did you mean "spill"/,
  )
})

test('a preset nesting DshBase.Config keeps the full path of an error inside it', async () => {
  const Config = strictConfig({ base: DshBase.Config.optional(), greeting: z.string().optional() })
  const Preset = {
    name: 'preset',
    Config,
    apply: async (ctx: Context, input?: z.input<typeof Config>) => {
      await ctx.plugin(DshBase, Config.parse(input).base)
    },
  }
  await expect(ctx.plugin(Preset, { base: { 'fs-sandbox': { readonlyRoots: [dir] } } } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('unknown key; did you mean "readOnlyRoots"? (at base.fs-sandbox.readonlyRoots)'),
  })
  await ctx.plugin(Preset, { base: base() })
  expect(ctx.get('loop')).toBeDefined()
})

test("the README's provider-swap example runs as written", async () => {
  const readme = await readFile(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8')
  const section = readme.slice(readme.indexOf("## Swapping a seam's provider"))
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1]
  // Next to the tests, so its package imports resolve; run from the temp dir, where its relative paths land.
  const file = fileURLToPath(new URL(`./.readme-example-${process.pid}.ts`, import.meta.url))
  await writeFile(file, `${code}\nexport { ctx, id }\n`)
  const cwd = process.cwd()
  process.chdir(dir)
  try {
    const example = await import(file)
    expect(example.id).toEqual(expect.any(String))
    // spill-local on its own keeps a private temp dir: files in the example's dir are project-spill's.
    expect((await readdir(join(dir, '.dshkit/spill'))).length).toBeGreaterThan(0)
    for (const runtime of [...example.ctx.registry.values()].reverse()) for (const fiber of [...runtime.fibers]) await fiber.dispose()
  } finally {
    process.chdir(cwd)
    await rm(file, { force: true })
  }
})

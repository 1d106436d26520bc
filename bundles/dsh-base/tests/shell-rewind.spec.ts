import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { Context } from 'cordis'
import fc from 'fast-check'
import { afterEach, expect, test } from 'vitest'
import DshBase from '../src/index.js'
import { disposeTop } from './helpers.js'
import { propertySeed } from '@dshkit/testing'

let dir: string | undefined
let ctx: Context | undefined

afterEach(async () => {
  if (ctx) await disposeTop(ctx)
  if (dir) await rm(dir, { recursive: true, force: true })
  ctx = dir = undefined
})

/** Every regular file under `root` and its bytes (what a rewind restores; folders, links and modes it does not). */
function files(root: string, at = root, out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(at)) {
    const path = join(at, name)
    const stats = lstatSync(path)
    if (stats.isDirectory()) files(root, path, out)
    else if (stats.isFile()) out[relative(root, path)] = readFileSync(path, 'latin1')
  }
  return out
}

async function boot() {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-shell-rewind-')))
  const ws = join(dir, 'ws')
  await mkdir(join(ws, 'd'), { recursive: true })
  await writeFile(join(ws, 'a'), 'first\n')
  await writeFile(join(ws, 'd', 'e'), 'deep\n')
  ctx = new Context()
  await ctx.plugin(DshBase, {
    log: join(dir, 'session.jsonl'),
    'fs-sandbox': { roots: [ws] },
    'user-approval': { responder: 'headless' },
    'permission-policy': { default: 'allow' },
  })
  const shell = async (callId: string, command: string) => (await ctx!.loop.executeToolCalls([{ callId, name: 'shell', arguments: { command } }])).results[0]
  return { ws, shell, ctx }
}

test('a sandboxed shell call leaves before-images and write intents with its call id; rewinding to it restores the files byte for byte', async () => {
  const { ws, shell, ctx } = await boot()
  const before = files(ws)
  const result = await shell('s1', 'echo changed > a && rm d/e && printf "\\x00\\xff" > bin && mkdir -p n && echo x > n/x')
  expect(result.isError).toBe(false)
  expect(readFileSync(join(ws, 'a'), 'utf8')).toBe('changed\n')
  const intents = ctx.session.events().flatMap((event) => (event.type === 'fs/write-intent' ? [event] : []))
  expect(intents.map((event) => [event.callId, relative(ws, event.path)]).sort()).toEqual([
    ['s1', 'a'],
    ['s1', 'bin'],
    ['s1', 'd/e'],
    ['s1', 'n/x'],
  ])
  const plan = await ctx.checkpoints.plan('s1')
  // Tracked now: the shell call recorded what it changed.
  expect(plan.notTracked).toEqual([])
  await ctx.checkpoints.apply(plan)
  expect(files(ws)).toEqual(before)
})

test("a background job's changes land when it exits, recorded under the call that started it, and rewind restores them", async () => {
  const { ws, ctx } = await boot()
  const before = files(ws)
  const run = async (callId: string, name: string, args: object) => (await ctx.loop.executeToolCalls([{ callId, name, arguments: args }])).results[0]
  const started = await run('bg', 'shell', { command: 'echo built > out.txt && rm a', background: true })
  expect(started.isError).toBe(false)
  const jobId = JSON.stringify(started.content).match(/job (j\d+)/)![1]
  const waited = await run('w', 'job_output', { job_id: jobId, wait: true })
  expect(waited.isError).toBe(false)
  await expect.poll(() => files(ws)).toEqual({ 'd/e': 'deep\n', 'out.txt': 'built\n' })
  const intents = ctx.session.events().flatMap((event) => (event.type === 'fs/write-intent' ? [event] : []))
  expect(intents.map((event) => [event.callId, relative(ws, event.path)]).sort()).toEqual([
    ['bg', 'a'],
    ['bg', 'out.txt'],
  ])
  await ctx.checkpoints.apply(await ctx.checkpoints.plan('bg'))
  expect(files(ws)).toEqual(before)
})

const NAMES = ['a', 'b', 'd/e', 'd/f', 'g/h']
const name = fc.constantFrom(...NAMES)
const text = fc.string({ unit: fc.constantFrom('x', 'y', 'z', ' ', '\n'), maxLength: 12 })
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`
const edit = fc.oneof(
  fc.tuple(name, text).map(([n, t]) => `mkdir -p $(dirname ${n}) && printf %s ${quote(t)} > ${n}`),
  fc.tuple(name, text).map(([n, t]) => `mkdir -p $(dirname ${n}) && printf %s ${quote(t)} >> ${n}`),
  name.map((n) => `rm -f ${n}`),
  fc.tuple(name, name).map(([from, to]) => `mkdir -p $(dirname ${to}) && mv -f ${from} ${to}`),
  fc.constantFrom('mkdir -p m/n', 'mkdir -p g'),
  name.map((n) => `chmod 600 ${n}`),
  fc.tuple(name, fc.constantFrom('l1', 'd/l2')).map(([target, link]) => `ln -s ${target} ${link}`),
)
const call = fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => `${edits.join(' 2>/dev/null; ')} 2>/dev/null; true`)

test('random shell edits, rewound to a random call, leave the files byte-identical to before that call (property, seed printed)', async () => {
  const seed = propertySeed()
  console.info(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  await fc.assert(
    fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 4 }), fc.nat(), async (commands, pick) => {
      const { ws, shell, ctx } = await boot()
      try {
        const snapshots: Record<string, string>[] = []
        for (const [i, command] of commands.entries()) {
          snapshots.push(files(ws))
          const result = await shell(`c${i}`, command)
          expect(result.isError, command).toBe(false)
        }
        const to = pick % commands.length
        const plan = await ctx.checkpoints.plan(`c${to}`)
        expect(plan.skip, JSON.stringify(commands)).toEqual([])
        await ctx.checkpoints.apply(plan)
        expect(files(ws), JSON.stringify({ commands, to })).toEqual(snapshots[to])
      } finally {
        await disposeTop(ctx)
        await rm(dir!, { recursive: true, force: true })
        dir = undefined
      }
    }),
    { seed, numRuns: 6 },
  )
}, 240_000)

import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { BootError, bootConfigFile, PluginStartError } from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-boot-')))
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

/** A cordis.yml booting dsh-base (sandboxed to the temp dir) plus `extra` entries. */
async function configWith(...extra: string[]) {
  const file = join(dir, 'cordis.yml')
  await writeFile(
    file,
    [
      'plugins:',
      "  - name: '@dshkit/dsh-base'",
      `    config: { fs-sandbox: { roots: [${JSON.stringify(dir)}] }, user-approval: { responder: headless } }`,
      ...extra,
    ].join('\n'),
  )
  return file
}

test('ctx.plugin(DshBase) rejects when an inner plugin cannot start, naming it, and leaves nothing running', async () => {
  const log = join(dir, 'held.jsonl')
  await writeFile(`${log}.lock`, '1') // pid 1 is alive and is not us: another writer holds the log
  const error = await rejection(ctx.plugin(DshBase, { log, 'fs-sandbox': { roots: [dir] } }))
  expect(error).toBeInstanceOf(PluginStartError)
  expect(error.message).toMatch(/^plugin "session-store-jsonl" failed to start: session log .*held\.jsonl is already open for writing by process 1/)
  expect(error.message).not.toContain('\n')
  for (const service of ['tools', 'loop', 'fs', 'session']) expect(ctx.get(service), service).toBeUndefined()
})

test('await ctx.plugin(DshBase) resolves only once every inner plugin is up', async () => {
  await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [dir] } })
  for (const service of ['tools', 'loop', 'fs', 'session', 'spill']) expect(ctx.get(service), service).toBeDefined()
})

test('a hooks entry whose settings file is missing fails the whole boot with one line; no tools stay up', async () => {
  const file = await configWith(
    "  - name: '@dshkit/hooks-claude-code'",
    `    config: { configPath: missing-settings.json, projectDir: ${JSON.stringify(dir)} }`,
  )
  const error = await rejection(bootConfigFile(ctx, file))
  expect(error).toBeInstanceOf(BootError)
  expect(error.problems).toEqual([
    expect.stringMatching(
      /cordis\.yml entry #2 \(@dshkit\/hooks-claude-code\): failed to start: cannot read the Claude Code settings file .*missing-settings\.json/,
    ),
  ])
  expect(ctx.get('tools')).toBeUndefined()
  expect(ctx.get('loop')).toBeUndefined()
})

test('a hooks entry with a bad matcher regex fails the whole boot with one line naming the matcher', async () => {
  await writeFile(
    join(dir, 'settings.json'),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Write(', hooks: [{ type: 'command', command: 'exit 2' }] }] },
    }),
  )
  const file = await configWith("  - name: '@dshkit/hooks-claude-code'", `    config: { configPath: settings.json, projectDir: ${JSON.stringify(dir)} }`)
  const error = await rejection(bootConfigFile(ctx, file))
  expect(error).toBeInstanceOf(BootError)
  expect(error.problems).toEqual([expect.stringMatching(/entry #2 \(@dshkit\/hooks-claude-code\): failed to start: .*matcher/)])
  expect(ctx.get('tools')).toBeUndefined()
})

test('a misspelled cordis.yml entry key is refused, naming it and the key it meant', async () => {
  const file = await configWith("  - name: '@dshkit/permission-policy'", '    confg: { default: deny }')
  const error = await rejection(bootConfigFile(ctx, file))
  expect(error.problems).toEqual(['cordis.yml entry #2 (@dshkit/permission-policy): confg: unknown key; did you mean "config"?'.replace('cordis.yml', file)])
})

test('a misspelled top-level key of a cordis.yml mapping is refused', async () => {
  const file = join(dir, 'cordis.yml')
  await writeFile(file, "plugin:\n  - name: '@dshkit/tools'\n")
  await expect(bootConfigFile(ctx, file)).rejects.toThrow(/cordis\.yml: .*plugin: unknown key; did you mean "plugins"\?/)
})

test('a misspelled dsh-base key, nested or not, is one line with its path and the key it meant', async () => {
  const file = join(dir, 'cordis.yml')
  await writeFile(
    file,
    [
      "- name: '@dshkit/dsh-base'",
      '  config:',
      `    fs-sandbox: { roots: [${JSON.stringify(dir)}], readonlyRoots: [${JSON.stringify(dir)}] }`,
      "    permission-policy: { rules: [{ tool: 'fs_*', decision: deny, when: { path: '**/package.json' }, reasn: x }] }",
      '    spill-polcy: false',
    ].join('\n'),
  )
  const error = await rejection(bootConfigFile(ctx, file))
  expect(error.problems).toEqual([
    `${file} entry #1 (@dshkit/dsh-base): invalid config: fs-sandbox.readonlyRoots: unknown key; did you mean "readOnlyRoots"?; ` +
      'permission-policy.rules.0.reasn: unknown key; did you mean "reason"?; spill-polcy: unknown key; did you mean "spill-policy"?',
  ])
  await expect(ctx.plugin(DshBase, { 'fs-sandbox': { readonlyRoots: [dir] } } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('unknown key; did you mean "readOnlyRoots"? (at fs-sandbox.readonlyRoots)'),
  })
})

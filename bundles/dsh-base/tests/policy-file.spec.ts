import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { bootConfigFile, readConfigFile } from '../src/index.js'
import { disposeTop } from './helpers.js'

let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-policy-file-')))
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const LOCK_RULE = "{ tool: fs_write, when: { path: '**/*.lock' }, decision: deny, reason: 'lock files are generated' }"

test('dshkit explain names the cordis.yml a permission-policy rule was written in', async () => {
  const file = join(dir, 'cordis.yml')
  await writeFile(
    file,
    [
      'plugins:',
      "  - name: '@dshkit/dsh-base'",
      `    config: { fs-sandbox: { roots: [${JSON.stringify(dir)}] }, user-approval: { responder: headless }, permission-policy: { rules: [${LOCK_RULE}] } }`,
    ].join('\n'),
  )
  const report = await bootConfigFile(ctx, file)
  expect(report.problems).toEqual([])
  const explained = await ctx.tools.explain({ callId: 'c', name: 'fs_write', arguments: { path: 'deps.lock', content: '' } })
  expect(explained.decision).toMatchObject({ kind: 'deny', reason: expect.stringContaining('lock files are generated') })
  const turn = explained.trace.find((entry) => entry.plugin === 'permission-policy')
  expect(turn?.detail).toMatchObject({ file, rule: { number: 1 } })
})

test('the path fills a permission-policy config written in the yml (entry or dsh-base part); a file set in the yml and everything else stay', async () => {
  const file = join(dir, 'list.yml')
  await writeFile(
    file,
    [
      "- name: '@dshkit/permission-policy'",
      `  config: { rules: [${LOCK_RULE}] }`,
      "- name: '@dshkit/permission-policy'",
      `  config: { rules: [], file: /etc/team-rules.yml }`,
      "- name: '@dshkit/permission-policy'",
      "- name: '@dshkit/permission-policy'",
      '  config: { default: deny }',
      "- name: '@dshkit/dsh-base'",
      '  config: { permission-policy: { rules: [] }, retry-policy: { maxAttempts: 2 } }',
      "- name: '@dshkit/dsh-base'",
      "- name: '@dshkit/retry-policy'",
      '  config: { rules: [] }',
    ].join('\n'),
  )
  const { entries: filled } = await readConfigFile(file)
  // Every dsh-base entry also protects the file (policy-files.spec.ts); here only `file` counts.
  const entries = filled.map((entry: any) => {
    if (entry.name !== '@dshkit/dsh-base') return entry
    expect(entry.config.protect).toEqual([file])
    const { protect: _protect, ...config } = entry.config
    return Object.keys(config).length ? { ...entry, config } : { name: entry.name }
  })
  expect(entries).toEqual([
    { name: '@dshkit/permission-policy', config: { rules: [expect.objectContaining({ tool: 'fs_write' })], file } },
    { name: '@dshkit/permission-policy', config: { rules: [], file: '/etc/team-rules.yml' } },
    { name: '@dshkit/permission-policy' },
    { name: '@dshkit/permission-policy', config: { default: 'deny', file } },
    { name: '@dshkit/dsh-base', config: { 'permission-policy': { rules: [], file }, 'retry-policy': { maxAttempts: 2 } } },
    { name: '@dshkit/dsh-base' },
    { name: '@dshkit/retry-policy', config: { rules: [] } },
  ])
})

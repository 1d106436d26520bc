import { link, lstat, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { bootConfigFile, readConfigFile } from '../src/index.js'
import { disposeTop } from './helpers.js'

let dir: string
let root: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-policy-files-')))
  root = join(dir, 'root')
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

/** The files that decide what the model may do, and the record of what it did, relative to the root. */
const POLICY = ['conf/cordis.yml', 'rules/team.json', '.claude/settings.json', '.claude/settings.local.json', '.codex/hooks.json', 'logs/session.jsonl']

/** One spelling per class of attack from inside the sandboxed shell: {F} the file, {D} its folder, {B} its name. */
const SHELL_ATTACKS = [
  'echo PLANTED > {F}',
  'echo PLANTED >> ./{F}',
  'echo PLANTED > {D}/../{D}/{B}',
  'echo PLANTED > "$PWD/{F}"',
  'ln -s "$PWD/{F}" link && echo PLANTED > link',
  'ln {F} hard && echo PLANTED > hard',
  'mv {D} {D}.old && mkdir -p {D} && echo PLANTED > {F}',
  'cd {D} && mv ../{D} ../{D}.old; mkdir -p ../{D} && echo PLANTED > {B}',
  'mv {F} {F}.old && echo PLANTED > {F}',
  'rm -f {F} && echo PLANTED > {F}',
  'cp /dev/null {F}; truncate -s 0 {F}; echo PLANTED | tee {F}',
  'mkdir -p {D}.new && echo PLANTED > {D}.new/{B} && rm -rf {D} && mv {D}.new {D}',
]

/** A project whose cordis.yml (in conf/) names a rule file and keeps its log in logs/, everything inside one root. */
async function project() {
  for (const file of POLICY.slice(1, 5)) {
    await mkdir(dirname(join(root, file)), { recursive: true })
    await writeFile(join(root, file), '{"original":true}')
  }
  await mkdir(join(root, 'conf'), { recursive: true })
  await mkdir(join(root, 'logs'), { recursive: true })
  const file = join(root, 'conf/cordis.yml')
  await writeFile(
    file,
    [
      'plugins:',
      "  - name: '@dshkit/dsh-base'",
      '    config:',
      `      fs-sandbox: { roots: [${JSON.stringify(root)}] }`,
      `      log: ${JSON.stringify(join(root, 'logs/session.jsonl'))}`,
      '      user-approval: { responder: headless }',
      '      permission-policy: { file: ../rules/team.json }',
    ].join('\n'),
  )
  return file
}

async function identities() {
  return Promise.all(POLICY.map(async (file) => ({ file, ino: (await lstat(join(root, file))).ino, text: await readFile(join(root, file), 'utf8') })))
}

describe('policy files are out of every tool’s reach', () => {
  test('boot names cordis.yml and every file it names in dsh-base’s protect list', async () => {
    const file = await project()
    const { entries } = await readConfigFile(file)
    expect((entries[0] as any).config.protect).toEqual(expect.arrayContaining([file, join(root, 'rules/team.json')]))
  })

  test('a shell call cannot write, replace, link or rename its way to a policy file (real bwrap), nor can fs_write by any spelling', async () => {
    await bootConfigFile(ctx, await project())
    const before = await identities()
    for (const file of POLICY) {
      const D = dirname(file)
      const B = file.slice(D.length + 1)
      for (const attack of SHELL_ATTACKS) {
        const command = attack.replaceAll('{F}', file).replaceAll('{D}', D).replaceAll('{B}', B)
        await ctx.loop.executeToolCalls([{ callId: 's', name: 'shell', arguments: { command } }])
        const now = await lstat(join(root, file))
        expect({ command, ino: now.ino }).toEqual({ command, ino: before.find((b) => b.file === file)!.ino })
        // The log records each command (PLANTED inside JSON); a planted line stands alone.
        expect(await readFile(join(root, file), 'utf8'), command).not.toMatch(/^PLANTED$/m)
      }
      for (const path of [file, `./${file}`, `${D}/../${D}/${B}`, join(root, file), 'link', `${D}//${B}`]) {
        const [result] = (await ctx.loop.executeToolCalls([{ callId: 'w', name: 'fs_write', arguments: { path, content: 'PLANTED' } }])).results
        expect({ path, isError: result.isError }).toEqual({ path, isError: true })
      }
      await rm(join(root, 'link'), { force: true })
    }
    const after = await identities()
    for (const [index, { file, ino, text }] of after.entries()) {
      expect({ file, ino }).toEqual({ file, ino: before[index].ino })
      if (file !== 'logs/session.jsonl') expect(text).toBe(before[index].text)
    }
  })

  test('a background job runs under the same launch: it cannot write or rename its way to a policy file either', async () => {
    await bootConfigFile(ctx, await project())
    const before = await identities()
    const command = POLICY.map(
      (file) => `echo PLANTED > ${file}; mv ${dirname(file)} ${dirname(file)}.old && mkdir ${dirname(file)} && echo PLANTED > ${file}`,
    ).join('; ')
    const [started] = (await ctx.loop.executeToolCalls([{ callId: 'j', name: 'shell', arguments: { command, background: true } }])).results
    expect(started).toMatchObject({ isError: false, value: { background: true } })
    await ctx.jobs.forOwner(ctx.jobs.toolOwner).wait((started as any).value.jobId, 20_000)
    const after = await identities()
    for (const [index, { file, ino, text }] of after.entries()) {
      expect({ file, ino }).toEqual({ file, ino: before[index].ino })
      expect(text, file).not.toMatch(/^PLANTED$/m)
    }
  })

  for (const linked of ['rules/team.json', '.claude/settings.json', '.dshkit/grants.json', '.dshkit/hooks-accepted.json', 'conf/cordis.yml']) {
    test(`a policy file with a second hard link is refused at start, naming it: ${linked}`, async () => {
      const file = await project()
      await mkdir(join(root, '.dshkit'), { recursive: true })
      if (linked.startsWith('.dshkit')) await writeFile(join(root, linked), '{"version":1,"grants":[],"files":{}}')
      await link(join(root, linked), join(root, 'copy.json'))
      await expect(bootConfigFile(ctx, file)).rejects.toThrow(new RegExp(`policy file .*${linked.replaceAll('.', '\\.')} has 2 hard links`))
    })
  }
})

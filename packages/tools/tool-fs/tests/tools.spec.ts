import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { ValidationError } from 'cordis'
import { afterEach, expect, test } from 'vitest'
import { boot, cleanup } from '@dshkit/testing'
import LocalFs from '@dshkit/fs-local'
import ToolFs from '../src/index.js'
import { setup } from './helpers.js'

afterEach(cleanup)

test('registers fs_read, fs_write, fs_edit, fs_list with schemas, fsAccess, and no timeouts', async () => {
  const { ctx } = await setup()
  const defs = ['fs_read', 'fs_write', 'fs_edit', 'fs_list'].map((name) => ctx.tools.get(name)!)
  expect(defs.every(Boolean)).toBe(true)
  expect(defs.map((d) => d.timeoutMs)).toEqual([undefined, undefined, undefined, undefined])
  expect(defs.map((d) => d.isConcurrencySafe?.({ path: 'a' }) ?? false)).toEqual([true, false, false, true])
  expect(defs[0].fsAccess!({ path: 'a.txt' })).toEqual([{ path: 'a.txt', access: 'read' }])
  expect(defs[1].fsAccess!({ path: 'a.txt', content: '' })).toEqual([{ path: 'a.txt', access: 'write' }])
  expect(defs[2].fsAccess!({ path: 'a.txt', old: 'x', new: 'y' })).toEqual([
    { path: 'a.txt', access: 'read' },
    { path: 'a.txt', access: 'write' },
  ])
  expect(defs[3].fsAccess!({ path: '.' })).toEqual([{ path: '.', access: 'read' }])
  const read = ctx.tools.schemas().find((s) => s.name === 'fs_read')!
  expect(read.inputSchema).toMatchObject({
    type: 'object',
    required: ['path'],
    properties: { offset: { type: 'integer', minimum: 1 }, limit: { type: 'integer' } },
  })
})

test('fs_read returns the file text; with offset/limit (lines, 1-based) it says where it stopped', async () => {
  const { text, at } = await setup()
  await writeFile(at('a.txt'), 'one\ntwo\nthree\nfour\n')
  expect(await text('fs_read', { path: 'a.txt' })).toBe('one\ntwo\nthree\nfour\n')
  expect(await text('fs_read', { path: 'a.txt', offset: 2, limit: 2 })).toBe(
    'two\nthree\n\n[lines 2-3 of a.txt; more lines follow; call fs_read with offset 4 to continue]',
  )
  expect(await text('fs_read', { path: 'a.txt', offset: 4 })).toBe('four\n\n[lines 4-4 of a.txt; end of file (4 lines)]')
  expect(await text('fs_read', { path: 'a.txt', offset: 9 })).toBe('[a.txt has 4 lines; offset 9 is past the end]')
  await writeFile(at('empty.txt'), '')
  expect(await text('fs_read', { path: 'empty.txt' })).toBe('[empty.txt is empty]')
})

test('fs_read errors reach the model as TOOL_ERROR with the FsError code and what to do', async () => {
  const { run, at } = await setup({ maxReadBytes: 10 })
  await writeFile(at('big.txt'), 'a\n'.repeat(20))
  expect(await run('fs_read', { path: 'big.txt' })).toMatchObject({
    isError: true,
    error: {
      code: 'TOOL_ERROR',
      message: `FS_TOO_LARGE: ${at('big.txt')} is 40 bytes, over the 10-byte read limit; read it in parts with offset and limit (in lines)`,
    },
  })
  expect(await run('fs_read', { path: 'missing.txt' })).toMatchObject({
    error: { code: 'TOOL_ERROR', message: expect.stringMatching(/^FS_NOT_FOUND: .*missing\.txt does not exist/) },
  })
  expect(await run('fs_read', { path: 'big.txt', offset: 0 })).toMatchObject({ error: { code: 'INVALID_ARGS' } })
  expect(await run('fs_read', { path: '' })).toMatchObject({ error: { code: 'INVALID_ARGS', message: expect.stringContaining('path must not be empty') } })
})

test('fs_write creates or overwrites and confirms the bytes written', async () => {
  const { text, at } = await setup()
  expect(await text('fs_write', { path: 'src/new.ts', content: 'export {}\n' })).toBe('Created src/new.ts (10 bytes)')
  expect(await text('fs_write', { path: 'src/new.ts', content: 'é' })).toBe('Overwrote src/new.ts (2 bytes)')
  expect(await readFile(at('src', 'new.ts'), 'utf8')).toBe('é')
})

test('fs_edit replaces one exact occurrence; no match and many matches explain what to do', async () => {
  const { text, run, at } = await setup()
  await writeFile(at('m.ts'), 'let a = 1\nlet b = 1\n')
  expect(await text('fs_edit', { path: 'm.ts', old: 'let a = 1', new: 'let a = 2' })).toBe('Edited m.ts: replaced 1 occurrence')
  expect(await run('fs_edit', { path: 'm.ts', old: 'let c', new: 'x' })).toMatchObject({
    error: {
      code: 'TOOL_ERROR',
      message: `FS_NO_MATCH: the text to replace was not found in ${at('m.ts')}; read the file again and copy the exact text, including whitespace and indentation`,
    },
  })
  expect(await run('fs_edit', { path: 'm.ts', old: ' = ', new: ': number = ' })).toMatchObject({
    error: {
      message: expect.stringMatching(
        /^FS_AMBIGUOUS_MATCH: the text to replace occurs 2 times in .*include more surrounding lines so it matches once, or set replaceAll/,
      ),
    },
  })
  expect(await text('fs_edit', { path: 'm.ts', old: ' = ', new: ': number = ', replaceAll: true })).toBe('Edited m.ts: replaced 2 occurrences')
  expect(await readFile(at('m.ts'), 'utf8')).toBe('let a: number = 2\nlet b: number = 1\n')
  expect(await run('fs_edit', { path: 'm.ts', old: 'let', new: 'let' })).toMatchObject({
    error: { message: expect.stringContaining('old and new are the same text') },
  })
  expect(await run('fs_edit', { path: 'm.ts', old: '', new: 'x' })).toMatchObject({ error: { code: 'INVALID_ARGS' } })
})

test('fs_list marks directories with a trailing / and symlinks with @', async () => {
  const { text, at } = await setup()
  await mkdir(at('src'))
  await mkdir(at('empty'))
  await writeFile(at('README.md'), '')
  await symlink('src', at('lib'))
  expect(await text('fs_list', { path: '.' })).toBe('README.md\nempty/\nlib@\nsrc/')
  expect(await text('fs_list', { path: 'empty' })).toBe('[empty is an empty directory]')
})

test('tool-fs waits for an fs provider, and disposing it removes its tools', async () => {
  const { ctx } = await boot()
  const fiber = ctx.plugin(ToolFs)
  await fiber
  expect(ctx.tools.get('fs_read')).toBeUndefined()
  await ctx.plugin(LocalFs)
  await fiber
  expect(ctx.tools.list().map((d) => d.name)).toEqual(['fs_read', 'fs_write', 'fs_edit', 'fs_list'])
  await fiber.dispose()
  expect(ctx.tools.list()).toEqual([])
})

test('bad config is refused with a ValidationError', async () => {
  const { ctx } = await boot()
  const error = await Promise.resolve(ctx.plugin(ToolFs, { cwd: '/tmp' } as any)).then(
    () => undefined,
    (e: Error) => e,
  )
  expect(error).toBeInstanceOf(ValidationError)
  expect(error?.message).toContain('tool-fs takes no options; set cwd and maxReadBytes on fs-local')
})

test('a file spelled as a directory (a.txt/) is FS_NOT_A_DIRECTORY for fs_read and fs_edit, and the file is untouched', async () => {
  const { run, at } = await setup()
  await writeFile(at('a.txt'), 'keep')
  for (const [name, args] of [
    ['fs_read', { path: 'a.txt/' }],
    ['fs_edit', { path: 'a.txt//', old: 'keep', new: 'lost' }],
    ['fs_write', { path: 'a.txt/', content: 'lost' }],
  ] as const) {
    const result = await run(name, args)
    expect(result, name).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR', message: expect.stringMatching(/^FS_(NOT_A_DIRECTORY|INVALID_PATH): /) } })
  }
  expect(await readFile(at('a.txt'), 'utf8')).toBe('keep')
})

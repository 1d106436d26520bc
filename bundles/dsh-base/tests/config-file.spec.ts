import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { readConfigFile } from '../src/index.js'

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-config-file-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Error) => error,
  )

// Each refusal is one line naming the path; none of them may hang or read without bound.
test('a FIFO is refused at once, not waited on for a writer', async () => {
  const fifo = join(dir, 'cordis.yml')
  execFileSync('mkfifo', [fifo])
  const error = await rejection(readConfigFile(fifo))
  expect(error?.message).toBe(`cannot read config ${fifo}: it is a FIFO, not a regular file; pass the path of a cordis.yml file`)
})

test('a symlink to a FIFO is judged by what it points at', async () => {
  const fifo = join(dir, 'pipe')
  execFileSync('mkfifo', [fifo])
  await symlink(fifo, join(dir, 'cordis.yml'))
  const error = await rejection(readConfigFile(join(dir, 'cordis.yml')))
  expect(error?.message).toMatch(/cordis\.yml: it is a FIFO, not a regular file/)
})

test('/dev/zero is refused without reading it', async () => {
  const error = await rejection(readConfigFile('/dev/zero'))
  expect(error?.message).toBe('cannot read config /dev/zero: it is a character device, not a regular file; pass the path of a cordis.yml file')
})

test('a directory is refused with one line', async () => {
  await mkdir(join(dir, 'conf'))
  const error = await rejection(readConfigFile(join(dir, 'conf')))
  expect(error?.message).toBe(`cannot read config ${join(dir, 'conf')}: it is a directory, not a regular file; pass the path of a cordis.yml file`)
})

test('a file over 4 MiB is refused before it is read', async () => {
  const big = join(dir, 'cordis.yml')
  await writeFile(big, '')
  await truncate(big, 4 * 1024 * 1024 + 1)
  const error = await rejection(readConfigFile(big))
  expect(error?.message).toBe(`cannot read config ${big}: it is 4194305 bytes, more than the 4194304 bytes a config file may have`)
})

test('a plain file still reads, and a missing one still says so', async () => {
  const file = join(dir, 'cordis.yml')
  await writeFile(file, 'plugins:\n  - name: "@dshkit/tools"\n')
  expect(await readConfigFile(file)).toEqual({ entries: [{ name: '@dshkit/tools' }], baseDir: dir })
  expect((await rejection(readConfigFile(join(dir, 'nope.yml'))))?.message).toBe(`cannot read config ${join(dir, 'nope.yml')}: no such file`)
})

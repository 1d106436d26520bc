import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { JsonlSessionStore, readSessionLog, SessionLogNotAFileError, SessionLogTooLargeError } from '../src/index.js'
import { call, line, open, tempDir } from './helpers.js'

afterEach(cleanup)

const canSee = (path: string) => existsSync(path)

/** A real named pipe: reading or appending to it would wait forever for the other end. */
async function fifo() {
  const dir = await tempDir()
  const path = join(dir, 'pipe.jsonl')
  execFileSync('mkfifo', [path])
  return { dir, path }
}

describe('a log path that is not a regular file is refused at once, and nothing is created next to it', () => {
  test.each([
    ['a FIFO', fifo, /is not a regular file \(it is a FIFO\)/],
    [
      'a directory',
      async () => {
        const dir = await tempDir()
        const path = join(dir, 'logs')
        await mkdir(path)
        return { dir, path }
      },
      /is not a regular file \(it is a directory\)/,
    ],
  ])('%s', async (_, make, reason) => {
    const { dir, path } = await make()
    const before = await readdir(dir)
    const opened = open(path)
    await expect(opened).rejects.toThrow(SessionLogNotAFileError)
    await expect(opened).rejects.toThrow(reason)
    await expect(opened).rejects.toThrow(/pass the path of a regular file/)
    await expect(readSessionLog(path)).rejects.toThrow(reason)
    expect(await readdir(dir)).toEqual(before) // no .lock, no temp files
  })

  test.each(['/dev/zero', '/dev/full', '/dev/null'].filter(canSee))('%s (a device: never read forever, never locked)', async (device) => {
    const store = new JsonlSessionStore(device, { warn: () => {} })
    await expect(store.load()).rejects.toThrow(/session log \/dev\/\w+ is not a regular file \(it is a character device\)/)
    await expect(readSessionLog(device)).rejects.toThrow(SessionLogNotAFileError)
    expect(existsSync(`${device}.lock`)).toBe(false)
  })
})

describe('a log bigger than the store loads into memory', () => {
  test('is refused before reading it, naming its size and the limit', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(path, line(call('c1')).repeat(50))
    const store = new JsonlSessionStore(path, { warn: () => {}, maxBytes: 1000 })
    await expect(store.load()).rejects.toThrow(SessionLogTooLargeError)
    await expect(store.load()).rejects.toThrow(/is \d+ bytes, more than the 1000 bytes this store loads into memory/)
    await expect(readSessionLog(path, { maxBytes: 1000 })).rejects.toThrow(SessionLogTooLargeError)
    expect((await readSessionLog(path)).events).toHaveLength(50) // the default limit is far above this
    expect(await readdir(dir)).toEqual(['s.jsonl'])
  })
})

import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { realpathSync } from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup, fakeClock, tempDir, textOf, valueOf } from '../src/index.js'

afterEach(cleanup)

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

describe('tempDir', () => {
  test('a fresh, empty, private directory given as its real path', async () => {
    const a = await tempDir('kit-')
    const b = await tempDir('kit-')
    expect(a).not.toBe(b)
    expect(realpathSync(a)).toBe(a)
    expect(await readdir(a)).toEqual([])
    expect((await stat(a)).mode & 0o777).toBe(0o700)
  })

  test('cleanup removes it, contents and write-protected folders included', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'locked'))
    await writeFile(join(dir, 'locked', 'file.txt'), 'x')
    await chmod(join(dir, 'locked'), 0o555)
    await cleanup()
    expect(await exists(dir)).toBe(false)
  })
})

describe('fakeClock', () => {
  test('freezes Date at the start time until moved', async () => {
    const clock = fakeClock(Date.UTC(2025, 0, 1))
    expect(Date.now()).toBe(Date.UTC(2025, 0, 1))
    expect(new Date().toISOString()).toBe('2025-01-01T00:00:00.000Z')
    await new Promise((resolve) => setTimeout(resolve, 15))
    expect(Date.now()).toBe(Date.UTC(2025, 0, 1))
    clock.advance(60_000)
    expect(new Date().toISOString()).toBe('2025-01-01T00:01:00.000Z')
    clock.set(new Date('2030-06-01T00:00:00Z'))
    expect(clock.now()).toBe(Date.UTC(2030, 5, 1))
  })

  test('dates built from arguments, Date() and instanceof work as usual', () => {
    const RealDate = Date
    fakeClock(0)
    expect(new Date('2024-02-03T04:05:06Z').getTime()).toBe(RealDate.UTC(2024, 1, 3, 4, 5, 6))
    expect(new Date(5) instanceof RealDate).toBe(true)
    expect(new RealDate(7) instanceof Date).toBe(true)
    expect(typeof Date()).toBe('string')
    expect(Date.parse('1970-01-01T00:00:01Z')).toBe(1000)
  })

  test('restore puts the real clock back; faking twice is refused with what to do', async () => {
    const clock = fakeClock(0)
    expect(() => fakeClock(1)).toThrow('restore() the first one (or call cleanup())')
    await clock.restore()
    expect(Date.now()).toBeGreaterThan(1_600_000_000_000)
  })

  test('cleanup restores it', async () => {
    fakeClock(0)
    await cleanup()
    expect(Date.now()).toBeGreaterThan(1_600_000_000_000)
  })
})

describe('textOf and valueOf', () => {
  test('textOf joins text blocks and skips images', () => {
    expect(
      textOf({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: '', mimeType: 'image/png' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb')
  })

  test("valueOf returns a success's value and throws a failure's code and message", () => {
    expect(valueOf({ isError: false, value: { n: 1 }, content: [] })).toEqual({ n: 1 })
    expect(() => valueOf({ isError: true, error: { code: 'DENIED', message: 'outside the root' }, content: [] })).toThrow(
      'expected success, got DENIED: outside the root',
    )
  })
})

import { describe, expect, test } from 'vitest'
import { FsError, type FsErrorCode } from './errors.js'
import type { FsCheckRequest, FsService } from './service.js'

/** A provider under test: `ctx.fs` on a fresh, empty working directory (`open` is called once per test). */
export interface FsUnderTest {
  fs: FsService
}

type Open = () => Promise<FsUnderTest>

/**
 * The fs seam's contract, as vitest tests every provider runs: `describeFsProvider('my-fs', open)` in one of its spec
 * files. Everything goes through the seam (files are made with `writeText`), so a provider need not sit on a disk;
 * what is its own (symlinks, descriptors, limits, atomicity on a real disk) stays in its own tests.
 */
export function describeFsProvider(name: string, open: Open): void {
  describe(`${name} keeps the fs seam's contract`, () => {
    describeTexts(open)
    describeEdits(open)
    describeListings(open)
    describeChecks(open)
  })
}

/** The FsError code a promise rejects with; a rejection that is not an FsError fails the test. */
async function codeOf(promise: Promise<unknown>): Promise<FsErrorCode | 'resolved'> {
  try {
    await promise
    return 'resolved'
  } catch (error) {
    expect(error, 'every failure of the fs seam is an FsError').toBeInstanceOf(FsError)
    return (error as FsError).code
  }
}

function describeTexts(open: Open) {
  test('writeText creates a file and its missing parents; readText gives it back whole, line endings untouched', async () => {
    const { fs } = await open()
    const text = 'één\r\ntwo\nthree 🎉'
    const written = await fs.writeText('deep/er/a.txt', text)
    expect(written).toMatchObject({ created: true, bytes: Buffer.byteLength(text) })
    expect(written.path).toBe(await fs.realpath('deep/er/a.txt'))
    expect(await fs.readText('deep/er/a.txt')).toEqual({ text, startLine: 1, lineCount: 3, hasMore: false, totalLines: 3, size: Buffer.byteLength(text) })
    expect(Buffer.from(await fs.readBytes('deep/er/a.txt')).toString('utf8')).toBe(text)
  })

  test('writeText over a file replaces it whole and says it was not created', async () => {
    const { fs } = await open()
    await fs.writeText('a.txt', 'a much longer first version\n')
    expect(await fs.writeText('a.txt', 'short\n')).toMatchObject({ created: false, bytes: 6 })
    expect((await fs.readText('a.txt')).text).toBe('short\n')
  })

  test('readText with offset and limit returns a window of lines and whether more follow', async () => {
    const { fs } = await open()
    await fs.writeText('n.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''))
    expect(await fs.readText('n.txt', { offset: 3, limit: 2 })).toMatchObject({ text: 'line 3\nline 4\n', startLine: 3, lineCount: 2, hasMore: true })
    expect(await fs.readText('n.txt', { offset: 9 })).toMatchObject({ text: 'line 9\nline 10\n', lineCount: 2, hasMore: false, totalLines: 10 })
    expect(await fs.readText('n.txt', { offset: 20 })).toMatchObject({ text: '', lineCount: 0, hasMore: false })
  })

  test('a missing file, a directory read as a file and a file listed as a directory fail with their codes', async () => {
    const { fs } = await open()
    await fs.writeText('dir/file.txt', 'x')
    expect(await codeOf(fs.readText('missing.txt'))).toBe('FS_NOT_FOUND')
    expect(await codeOf(fs.readBytes('missing.txt'))).toBe('FS_NOT_FOUND')
    expect(await codeOf(fs.stat('missing.txt'))).toBe('FS_NOT_FOUND')
    expect(await codeOf(fs.readText('dir'))).toBe('FS_IS_A_DIRECTORY')
    expect(await codeOf(fs.list('dir/file.txt'))).toBe('FS_NOT_A_DIRECTORY')
    expect(await codeOf(fs.writeText('dir', 'x'))).toBe('FS_IS_A_DIRECTORY')
  })
}

function describeEdits(open: Open) {
  test('editText replaces the one occurrence; none or several (without replaceAll) fail and leave the file as it was', async () => {
    const { fs } = await open()
    await fs.writeText('e.txt', 'alpha beta alpha\ngamma\n')
    expect(await fs.editText('e.txt', 'gamma', 'delta')).toMatchObject({ replacements: 1 })
    expect(await codeOf(fs.editText('e.txt', 'omega', 'x'))).toBe('FS_NO_MATCH')
    expect(await codeOf(fs.editText('e.txt', 'alpha', 'x'))).toBe('FS_AMBIGUOUS_MATCH')
    expect((await fs.readText('e.txt')).text).toBe('alpha beta alpha\ndelta\n')
    expect(await fs.editText('e.txt', 'alpha', 'omega', { replaceAll: true })).toMatchObject({ replacements: 2 })
    expect((await fs.readText('e.txt')).text).toBe('omega beta omega\ndelta\n')
  })
}

function describeListings(open: Open) {
  test('list names each entry with its type; stat gives the real path, type, size and permission bits', async () => {
    const { fs } = await open()
    await fs.writeText('root/sub/inner.txt', 'inner')
    await fs.writeText('root/file.txt', '12345')
    const entries = await fs.list('root')
    expect([...entries].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'file.txt', type: 'file' },
      { name: 'sub', type: 'directory' },
    ])
    const stat = await fs.stat('root/file.txt')
    expect(stat).toMatchObject({ path: await fs.realpath('root/file.txt'), type: 'file', size: 5 })
    expect(stat.mode).toBe(stat.mode & 0o7777)
    expect((await fs.stat('root/sub')).type).toBe('directory')
  })

  test('relative paths resolve against cwd, and `..` lexically', async () => {
    const { fs } = await open()
    await fs.writeText('a/b.txt', 'b')
    expect(fs.resolve('a/../a/b.txt')).toBe(fs.resolve('a/b.txt'))
    expect(fs.resolve('a/b.txt').startsWith(fs.cwd)).toBe(true)
    expect((await fs.readText(fs.resolve('a/b.txt'))).text).toBe('b')
  })
}

function describeChecks(open: Open) {
  test('every operation asks the containment checks first (phase path), and a read asks again on what it opened', async () => {
    const { fs } = await open()
    await fs.writeText('c.txt', 'c')
    const seen: FsCheckRequest[] = []
    const remove = fs.addCheck((request) => void seen.push(request))
    await fs.readText('c.txt')
    remove()
    const absolute = fs.resolve('c.txt')
    expect(seen).toContainEqual(expect.objectContaining({ op: 'readText', access: 'read', path: absolute, phase: 'path' }))
    expect(seen).toContainEqual(expect.objectContaining({ op: 'readText', access: 'read', phase: 'descriptor' }))
    seen.length = 0
    await fs.readText('c.txt')
    expect(seen, 'a removed check is not asked again').toEqual([])
  })

  test('a check that throws denies: nothing is written, and a non-FsError is turned into FS_SANDBOX_DENIED', async () => {
    const { fs } = await open()
    const remove = fs.addCheck((request) => {
      if (request.access === 'write') throw new Error('no writes here')
    })
    expect(await codeOf(fs.writeText('denied.txt', 'x'))).toBe('FS_SANDBOX_DENIED')
    remove()
    expect(await codeOf(fs.stat('denied.txt'))).toBe('FS_NOT_FOUND')
  })
}

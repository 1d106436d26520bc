import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { expect, test } from 'vitest'
// By package name (the built lib/), not ../src: dependents' tests type-check against lib/, and two copies of a
// class-typed `ctx.fs` in one program would clash. `pnpm test` builds before it runs.
import FsSeam, {
  FsError,
  FsService,
  isWithin,
  resolveRealPath,
  resolveRealPathSync,
  toFsError,
  type FsEntry,
  type FsStat,
  type TextSlice,
  type WriteResult,
  type EditResult,
} from '@dshkit/fs'

/** The smallest provider: it only runs the checks, so the seam's own behaviour is what is tested. */
class ProbeFs extends FsService {
  readonly cwd = '/work/project'
  async readText(path: string): Promise<TextSlice> {
    const abs = this.resolve(path)
    await this.check({ op: 'readText', access: 'read', path: abs, realPath: abs, phase: 'path' })
    return { text: 'ok', startLine: 1, lineCount: 1, hasMore: false, totalLines: 1, size: 2 }
  }
  readBytes(): Promise<Uint8Array> {
    throw new Error('unused')
  }
  writeText(): Promise<WriteResult> {
    throw new Error('unused')
  }
  editText(): Promise<EditResult> {
    throw new Error('unused')
  }
  list(): Promise<FsEntry[]> {
    throw new Error('unused')
  }
  stat(): Promise<FsStat> {
    throw new Error('unused')
  }
  realpath(): Promise<string> {
    throw new Error('unused')
  }
}

async function setup() {
  const ctx = new Context()
  await ctx.plugin({ name: 'probe-fs', apply: (ctx: Context) => void new ProbeFs(ctx) })
  return ctx
}

test('a provider is reachable as ctx.fs and resolves relative paths against its cwd', async () => {
  const ctx = await setup()
  expect(ctx.fs).toBeInstanceOf(FsService)
  expect(ctx.fs.resolve('src/a.ts')).toBe('/work/project/src/a.ts')
  expect(ctx.fs.resolve('../other/../x')).toBe('/work/x')
  expect(ctx.fs.resolve('/etc/hosts')).toBe('/etc/hosts')
  expect(() => ctx.fs.resolve('a\0b')).toThrow(/contains a NUL byte/)
})

test('checks run in the order added, see each request, and leave with the plugin that added them', async () => {
  const ctx = await setup()
  const seen: string[] = []
  const first = ctx.plugin({ name: 'first', inject: ['fs'], apply: (ctx: Context) => void ctx.fs.addCheck((r) => void seen.push(`first ${r.op} ${r.path}`)) })
  await first
  const second = ctx.plugin({ name: 'second', inject: ['fs'], apply: (ctx: Context) => void ctx.fs.addCheck((r) => void seen.push(`second ${r.access}`)) })
  await second
  await ctx.fs.readText('a.txt')
  expect(seen).toEqual(['first readText /work/project/a.txt', 'second read'])
  await first.dispose()
  seen.length = 0
  await ctx.fs.readText('a.txt')
  expect(seen).toEqual(['second read'])
})

test('a check that throws denies: an FsError passes through, anything else becomes FS_SANDBOX_DENIED', async () => {
  const ctx = await setup()
  let thrown: unknown = new FsError('FS_SANDBOX_DENIED', 'not here', '/x')
  await ctx.plugin({
    name: 'policy',
    inject: ['fs'],
    apply: (ctx: Context) =>
      void ctx.fs.addCheck(() => {
        throw thrown
      }),
  })
  await expect(ctx.fs.readText('a.txt')).rejects.toMatchObject({ code: 'FS_SANDBOX_DENIED', message: 'not here' })
  thrown = new TypeError('policy bug')
  const error = await ctx.fs.readText('a.txt').catch((e) => e)
  expect(error).toBeInstanceOf(FsError)
  expect(error.code).toBe('FS_SANDBOX_DENIED')
  expect(error.message).toBe('a containment check failed, so read of /work/project/a.txt is denied: policy bug')
})

test('the addCheck disposer removes just that check', async () => {
  const ctx = await setup()
  let calls = 0
  let remove = () => {}
  await ctx.plugin({
    name: 'p',
    inject: ['fs'],
    apply: (ctx: Context) => {
      remove = ctx.fs.addCheck(() => void calls++)
    },
  })
  await ctx.fs.readText('a')
  remove()
  await ctx.fs.readText('a')
  expect(calls).toBe(1)
  expect(() => ctx.fs.addCheck('nope' as any)).toThrow(/addCheck\(\) needs a function/)
})

test('the service leaves with its provider plugin', async () => {
  const ctx = new Context()
  const fiber = ctx.plugin({ name: 'probe-fs', apply: (ctx: Context) => void new ProbeFs(ctx) })
  await fiber
  expect(ctx.get('fs')).toBeDefined()
  await fiber.dispose()
  expect(ctx.get('fs')).toBeUndefined()
})

// Both variants walk the same steps; the sync one serves synchronous judges such as permission-policy's guard.
test.each([
  ['resolveRealPath', resolveRealPath],
  ['resolveRealPathSync', async (abs: string) => resolveRealPathSync(abs)],
])('%s follows symlinks (dangling ones too) and appends what does not exist yet', async (_, resolveRealPath) => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-fs-')))
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  await mkdir(join(root, 'dir'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(root, 'dir', 'f.txt'), 'x')
  await symlink(outside, join(root, 'out'))
  await symlink('../outside/not-yet.txt', join(root, 'dangling'))
  await symlink('dir', join(root, 'in'))
  await symlink('in', join(root, 'chain'))
  await symlink('out/../root/dir', join(root, 'physical-dotdot'))
  await symlink('loop-b', join(root, 'loop-a'))
  await symlink('loop-a', join(root, 'loop-b'))

  expect(await resolveRealPath(join(root, 'dir', 'f.txt'))).toBe(join(root, 'dir', 'f.txt'))
  expect(await resolveRealPath(join(root, 'dir', 'new', 'deeper.txt'))).toBe(join(root, 'dir', 'new', 'deeper.txt'))
  expect(await resolveRealPath(join(root, 'out', 'new', 'file.txt'))).toBe(join(outside, 'new', 'file.txt'))
  expect(await resolveRealPath(join(root, 'dangling'))).toBe(join(outside, 'not-yet.txt'))
  expect(await resolveRealPath(join(root, 'chain', 'f.txt'))).toBe(join(root, 'dir', 'f.txt'))
  expect(await resolveRealPath(join(root, 'chain', 'missing', 'x'))).toBe(join(root, 'dir', 'missing', 'x'))
  // `..` inside a link target is taken physically, after `out` is followed, as the kernel does it.
  expect(await resolveRealPath(join(root, 'physical-dotdot', 'zzz'))).toBe(join(root, 'dir', 'zzz'))
  expect(await resolveRealPath(join(root, 'dir', 'f.txt', 'below-a-file'))).toBe(join(root, 'dir', 'f.txt', 'below-a-file'))
  // `..` in the path itself is lexical (what path.resolve and the provider use), not through the link.
  expect(await resolveRealPath(`${root}/out/../dir/f.txt`)).toBe(join(root, 'dir', 'f.txt'))
  await expect(resolveRealPath(join(root, 'loop-a', 'x'))).rejects.toMatchObject({ code: 'FS_SYMLINK_LOOP' })
  await expect(resolveRealPath('relative/path')).rejects.toMatchObject({ code: 'FS_INVALID_PATH' })
})

test('toFsError names the path and says what to do; isWithin does not confuse prefixes', () => {
  const missing = toFsError(Object.assign(new Error('ENOENT: x'), { code: 'ENOENT' }), '/p/a.txt')
  expect(missing).toMatchObject({ code: 'FS_NOT_FOUND', path: '/p/a.txt' })
  expect(missing.message).toMatch(/^\/p\/a\.txt does not exist; check the path/)
  expect(toFsError(Object.assign(new Error('x'), { code: 'EISDIR' }), '/p')).toMatchObject({ code: 'FS_IS_A_DIRECTORY' })
  expect(toFsError(new Error('disk on fire'), '/p')).toMatchObject({ code: 'FS_IO', message: 'I/O error on /p: disk on fire' })
  const own = new FsError('FS_TOO_LARGE', 'big', '/p')
  expect(toFsError(own, '/q')).toBe(own)
  expect(FsError.is(own, 'FS_TOO_LARGE')).toBe(true)
  expect(FsError.is(own, 'FS_NOT_FOUND')).toBe(false)
  expect(isWithin('/a/b', '/a')).toBe(true)
  expect(isWithin('/a', '/a')).toBe(true)
  expect(isWithin('/ab', '/a')).toBe(false)
  expect(isWithin('/anything', '/')).toBe(true)
})

test('the seam plugs as a no-op and refuses a config meant for the provider, naming the key and the provider', async () => {
  const ctx = new Context()
  await ctx.plugin(FsSeam)
  expect(ctx.get('fs')).toBeUndefined()
  const error = await Promise.resolve(ctx.plugin(FsSeam, { cwd: '/srv' } as never)).then(
    () => undefined,
    (e: Error) => e,
  )
  expect(error?.name).toBe('ValidationError')
  expect(error?.message).toContain(
    'unknown key "cwd": @dshkit/fs is only the seam and takes no config; configure the provider instead (for example @dshkit/fs-local: cwd, maxReadBytes)',
  )
})

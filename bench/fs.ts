// The cost of dshkit's checked file I/O: fs-local's descriptor-checked reads and atomic writes, with and
// without fs-sandbox, and a whole fs_read tool call, against plain node:fs in the same run.
import { randomBytes } from 'node:crypto'
import { mkdtemp, open, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import LocalFs from '@dshkit/fs-local'
import ToolFs from '@dshkit/tool-fs'
import Sandbox from '@dshkit/fs-sandbox'
import { compare, machine, table } from './support/measure.js'

const log = (message: string) => process.stderr.write(`fs: ${message}\n`)

async function boot(dir: string, sandboxed: boolean) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin(LocalFs, { cwd: dir })
  await ctx.plugin(ToolFs)
  if (sandboxed) await ctx.plugin(Sandbox, { roots: [dir] })
  return ctx
}

/** What a careful hand-written atomic write does: temp file, fsync, rename. */
async function plainAtomicWrite(path: string, content: string) {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`
  const file = await open(temp, 'wx')
  try {
    await file.writeFile(content)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temp, path)
}

const dir = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-bench-fs-')))
try {
  const text = 'const x = 1\n'.repeat(300) // ~3.6 KB, a typical source file
  await writeFile(join(dir, 'src.ts'), text)
  const plain = await boot(dir, false)
  const boxed = await boot(dir, true)
  let n = 0
  // Taken once, as the agent loop does: a read of ctx.tools.execute per call goes through cordis's service proxy.
  const execute = boxed.tools.execute

  log('reads')
  const reads = await compare(
    {
      'node:fs readFile': () => readFile(join(dir, 'src.ts'), 'utf8'),
      'ctx.fs.readText (fs-local)': () => plain.fs.readText('src.ts'),
      'ctx.fs.readText + fs-sandbox check': () => boxed.fs.readText('src.ts'),
      'fs_read tool call + fs-sandbox': () => execute({ callId: `r${n++}`, name: 'fs_read', arguments: { path: 'src.ts' } }),
    },
    { rounds: 9, batch: 400, warmup: 400 },
  )

  log('writes (fsync)')
  const writes = await compare(
    {
      'node:fs writeFile (no fsync)': () => writeFile(join(dir, 'w0.ts'), text),
      'temp + fsync + rename by hand': () => plainAtomicWrite(join(dir, 'w1.ts'), text),
      'ctx.fs.writeText (fs-local)': () => plain.fs.writeText('w2.ts', text),
      'ctx.fs.writeText + fs-sandbox check': () => boxed.fs.writeText('w3.ts', text),
    },
    { rounds: 5, batch: 40, warmup: 20 },
  )

  const readBase = reads['node:fs readFile']
  const writeBase = writes['temp + fsync + rename by hand']
  console.log(
    [
      '## fs',
      '',
      `${machine()}. Median µs per operation on a 3.6 KB file in a temp dir; ratio against the plain node:fs baseline of the same kind.`,
      '',
      table(
        ['operation', 'µs', 'ratio'],
        [
          ...Object.entries(reads).map(([k, v]) => [k, v, `${(v / readBase).toFixed(2)}×`]),
          ...Object.entries(writes).map(([k, v]) => [k, v, `${(v / writeBase).toFixed(2)}×`]),
        ],
      ),
      '',
      'Reads pay for the path check, the O_PATH pin, the /proc/self/fd readlink and the reopen; the sandbox adds its two judgements.',
      'Writes are dominated by fsync; fs-local also fsyncs the directory after the rename (so the rename itself survives a crash), which the by-hand baseline skips.',
    ].join('\n'),
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}

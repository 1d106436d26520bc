import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually, onCleanup } from '@dshkit/testing'
import { bootSandbox, makeTree } from './helpers.js'

afterEach(cleanup)

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')
const FILES = 3000

test('kill -9 mid-apply: every file is either untouched or whole, and the next start removes the temp files it left', async () => {
  const { root } = await makeTree()
  // A separate node (the built package) hosts the sandbox; the test kills it once the apply has begun.
  const code = `
    import { Context } from 'cordis'
    import ShellSandbox from '@dshkit/shell-sandbox'
    const ctx = new Context()
    await ctx.plugin(ShellSandbox, { roots: [${JSON.stringify(root)}] })
    while (!ctx.get('shell')) await new Promise((resolve) => setTimeout(resolve, 10))
    ctx.get('shell').run({ command: 'for i in $(seq ${FILES}); do printf "content-%d" $i > f$i; done' })
    setInterval(() => {}, 1000)
  `
  const host = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  host.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  onCleanup(() => {
    host.kill('SIGKILL')
  })
  const landed = () => readdirSync(root).filter((name) => /^f\d+$/.test(name))
  await eventually(() => landed().length > 0 || (stderr ? Promise.reject(new Error(stderr)) : false), { timeoutMs: 60_000, intervalMs: 1 })
  host.kill('SIGKILL')
  await new Promise((resolve) => host.once('exit', resolve))
  const after = landed()
  expect(after.length).toBeLessThan(FILES) // killed mid-apply, not after it
  for (const name of after) expect(readFileSync(join(root, name), 'utf8')).toBe(`content-${name.slice(1)}`)
  const { logs } = await bootSandbox(root)
  expect(readdirSync(root).filter((name) => name.startsWith('.dshkit-txn-'))).toEqual([])
  // What the kill left, if it caught a file between write and rename, was named at start.
  for (const line of logs.filter((log) => log.text.includes('interrupted apply'))) expect(line.type).toBe('warn')
}, 120_000)

test('a temp file of an apply whose process is gone is removed at start, with a warning; one of a live process is kept', async () => {
  const { root } = await makeTree()
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
  writeFileSync(join(root, 'src', `.dshkit-txn-${gone}-7`), 'half a file')
  writeFileSync(join(root, `.dshkit-txn-${process.pid}-7`), 'mine, in flight')
  const { logs } = await bootSandbox(root)
  expect(existsSync(join(root, 'src', `.dshkit-txn-${gone}-7`))).toBe(false)
  expect(existsSync(join(root, `.dshkit-txn-${process.pid}-7`))).toBe(true)
  expect(logs.find((log) => log.text.includes('interrupted apply'))).toMatchObject({ type: 'warn', text: expect.stringContaining(`.dshkit-txn-${gone}-7`) })
})

import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bootSandbox, makeTree } from './helpers.js'

afterEach(cleanup)

test('a timeout ends a sandboxed command that ignores SIGTERM, promptly', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const started = Date.now()
  const result = await shell.run({ command: "trap '' TERM; while :; do sleep 1; done", timeoutMs: 300, graceMs: 300 })
  expect(result).toMatchObject({ timedOut: true, sandboxed: true })
  expect(Date.now() - started).toBeLessThan(5000)
})

test('aborting ends the sandboxed command and the result says so', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const controller = new AbortController()
  const running = shell.run({ command: 'sleep 100', signal: controller.signal })
  setTimeout(() => controller.abort(), 200)
  expect(await running).toMatchObject({ aborted: true, sandboxed: true })
})

test('a relative cwd resolves against the first root, and exit codes come through', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  expect(await shell.run({ command: 'pwd; exit 7', cwd: 'config' })).toMatchObject({ exitCode: 7, stdout: { text: `${root}/config\n` } })
})

test('a launch refused by the deny-scan limit is a result that says why, not a throw', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root, { denyScanLimit: 3 })
  const result = await shell.run({ command: 'echo never' })
  expect(result.exitCode).toBe(null)
  expect(result.error).toMatch(/denyScanLimit/)
  expect(result.stdout.text).toBe('')
})

test('env and inheritEnv work as in shell-local: a secret in this process stays out when inheritEnv is false', async () => {
  const { root } = await makeTree()
  process.env.DSHKIT_TEST_SECRET = 'leaked'
  try {
    const { shell } = await bootSandbox(root, { env: { GREETING: 'hi' }, inheritEnv: false })
    const result = await shell.run({ command: 'echo "$GREETING ${DSHKIT_TEST_SECRET:-kept out}"' })
    expect(result.stdout.text).toBe('hi kept out\n')
  } finally {
    delete process.env.DSHKIT_TEST_SECRET
  }
})

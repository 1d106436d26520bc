import { createServer } from 'node:net'
import { cleanup } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { SECRET, bootSandbox, makeTree } from './helpers.js'

afterEach(cleanup)

// Tries a hostile command makes against the real bubblewrap sandbox; each must fail.

test('a host abstract unix socket (not a file, so no mount hides it) is out of reach without the network', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const name = `dshkit-attack-${process.pid}`
  const server = createServer((socket) => socket.end('HOST-REACHED\n'))
  await new Promise<void>((resolve) => server.listen(`\0${name}`, resolve))
  try {
    // The same node that runs the tests, so the probe itself cannot be missing.
    const probe = `require('net').connect('\\0${name}').on('data', (d) => console.log(String(d))).on('error', (e) => console.log(e.code))`
    const result = await shell.run({ command: `${JSON.stringify(process.execPath)} -e ${JSON.stringify(probe)}`, timeoutMs: 20_000 })
    expect(result.stdout.text).not.toContain('HOST-REACHED')
    expect(result.stdout.text).toMatch(/ECONNREFUSED|ENOENT/)
  } finally {
    server.close()
  }
})

test('a hidden file stays hidden through /proc/self/root, a hard link, a rename of its folder, and a new mount', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: `cat /proc/self/root${root}/.env; ln .env hard 2>&1; cat hard 2>/dev/null; mv config moved && cat moved/.env.local; mount -t tmpfs none .git 2>&1; umount .env 2>&1; cat .env`,
    timeoutMs: 20_000,
  })
  expect(result.stdout.text).not.toContain(SECRET)
  expect(result.stdout.text).toMatch(/cross-device/)
})

test('only the roots, the private /tmp and /run, and /dev are writable: every other mount refuses a new file', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: `awk '{print $5}' /proc/self/mountinfo | sort -u | while read m; do t="$m/.attack-$$"; (echo x > "$t") 2>/dev/null && echo "WRITABLE $m" && rm -f "$t"; done; true`,
    timeoutMs: 20_000,
  })
  const writable = result.stdout.text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace('WRITABLE ', ''))
    .sort()
  expect(writable).toEqual(['/dev', '/dev/shm', '/run', '/tmp', root].sort())
})

test("no process inside sees bubblewrap's flags: /proc/*/cmdline names no hidden path, root or mount source", async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  // Some processes of its own keep running while it reads, so more than pid 1 and itself are looked at.
  const result = await shell.run({
    command: 'sleep 5 & (sleep 5; true) & for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done; kill %1 %2',
  })
  expect(result.stdout.text).toMatch(/sleep 5/)
  for (const leak of ['/.env', '.git', 'config', 'ro-bind', '--bind', 'dshkit-shell-sandbox-', root]) expect(result.stdout.text).not.toContain(leak)
})

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { readFile, symlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually, onCleanup } from '@dshkit/testing'
import { bootSandbox, makeTree, SECRET } from './helpers.js'

afterEach(cleanup)

/** Host processes whose command line carries `token` (what a leaked sandboxed process would show). */
function hostProcessesWith(token: string): number[] {
  const found: number[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(token)) found.push(Number(pid))
    } catch {}
  }
  return found
}

test('a command runs in the root, can write there, and says it was sandboxed', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({ command: 'pwd; echo made > made.txt && cat made.txt' })
  expect(result).toMatchObject({ exitCode: 0, sandboxed: true, stdout: { text: `${root}\nmade\n` } })
  expect(await readFile(join(root, 'made.txt'), 'utf8')).toBe('made\n')
})

test('writing outside the roots fails, directly or through a symlink in the root', async () => {
  const { root, outside } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: `echo a > ${outside}/direct; echo b > out-link/via-dir-link; echo c >> canary-link; echo d > /etc/dshkit-pwn; touch ~/dshkit-pwn; echo done`,
  })
  expect(result.stdout.text).toBe('done\n')
  expect(result.stderr.text).toMatch(/Read-only file system/)
  for (const path of [`${outside}/direct`, `${outside}/via-dir-link`, '/etc/dshkit-pwn', join(homedir(), 'dshkit-pwn')])
    expect(existsSync(path), path).toBe(false)
  expect(await readFile(join(outside, 'canary.txt'), 'utf8')).toBe(SECRET)
})

test('a read-only root cannot be written, removed from or renamed, even inside a writable root', async () => {
  const { root, ro } = await makeTree()
  const { shell } = await bootSandbox(root)
  await shell.run({ command: 'echo x > ro/new.txt; echo y >> ro/doc.txt; rm -f ro/doc.txt; mv ro ro-moved; rm -rf ro' })
  expect(readdirSync(ro)).toEqual(['doc.txt'])
  expect(await readFile(join(ro, 'doc.txt'), 'utf8')).toBe('read-only doc')
})

test('deny-glob files read empty or missing, by name, through a symlink, or through /proc', async () => {
  const { root } = await makeTree()
  await symlink(join(root, '.env'), join(root, 'env-link'))
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: `cat .env config/.env.local env-link .git/config src/.git/HEAD /proc/self/root${root}/.env /proc/1/root${root}/.git/config; ls -A .git; grep -r CANARY . ; echo end`,
  })
  expect(result.stdout.text).not.toContain(SECRET)
  expect(result.stdout.text).toMatch(/end\n$/)
  // The real files are untouched, and writes to them fail.
  await shell.run({ command: 'echo overwritten > .env; rm -rf .git' })
  expect(await readFile(join(root, '.env'), 'utf8')).toBe(`TOKEN=${SECRET}`)
  expect(await readFile(join(root, '.git/config'), 'utf8')).toContain(SECRET)
})

test('dropping privileges sticks: no remount, no unmount of a hidden file, not even from a new user namespace', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: [
      'mount -o remount,rw / 2>/dev/null && echo REMOUNTED',
      `umount ${root}/.env 2>/dev/null && echo UNMOUNTED`,
      `unshare -Urm sh -c 'umount ${root}/.env; mount -o remount,rw,bind ${root}/ro; cat ${root}/.env; echo z > ${root}/ro/doc.txt' 2>/dev/null`,
      'echo end',
    ].join('; '),
  })
  expect(result.stdout.text).not.toMatch(/REMOUNTED|UNMOUNTED/)
  expect(result.stdout.text).not.toContain(SECRET)
  expect(await readFile(join(root, 'ro/doc.txt'), 'utf8')).toBe('read-only doc')
})

test("the host's processes are out of sight: /proc/<host pid>/root leads nowhere", async () => {
  const { root, outside } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: `ls /proc/${process.pid}/root/ 2>&1; echo x > /proc/${process.pid}/root${outside}/pwn; ls /proc | grep -cE '^[0-9]+$'`,
  })
  expect(result.stdout.text).toMatch(/No such file or directory/)
  expect(existsSync(join(outside, 'pwn'))).toBe(false)
  // Only the sandbox's own few processes exist.
  expect(Number(result.stdout.text.trim().split('\n').at(-1))).toBeLessThan(10)
})

test("/tmp is private: the host's files are not there, and what a command leaves there vanishes", async () => {
  const { root } = await makeTree()
  const token = `dshkit-tmp-${process.pid}-${Date.now()}`
  await writeFile(`/tmp/${token}-host`, SECRET)
  onCleanup(() => rmSync(`/tmp/${token}-host`, { force: true }))
  const { shell } = await bootSandbox(root)
  const first = await shell.run({ command: `cat /tmp/${token}-host; echo inner > /tmp/${token}-inner && cat /tmp/${token}-inner` })
  expect(first.stdout.text).toBe('inner\n')
  expect(first.stderr.text).toMatch(/No such file/)
  expect(existsSync(`/tmp/${token}-inner`)).toBe(false)
  const second = await shell.run({ command: `cat /tmp/${token}-inner` })
  expect(second.exitCode).not.toBe(0)
})

test("no network: a server on the host's loopback cannot be reached (and can with network: true)", async () => {
  const { root } = await makeTree()
  const server = createServer((socket) => socket.end('hello from the host\n'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const port = (server.address() as { port: number }).port
  const connect = `${process.execPath} -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.log(e.code); process.exit(3) })"`
  const closed = await (await bootSandbox(root)).shell.run({ command: connect })
  expect(closed).toMatchObject({ exitCode: 3, stdout: { text: 'ECONNREFUSED\n' } })
  const open = await (await bootSandbox(root, { network: true })).shell.run({ command: connect })
  expect(open).toMatchObject({ exitCode: 0, stdout: { text: 'hello from the host\n' } })
})

test('nothing started inside outlives the call, even with a scrubbed environment, setsid and nohup', async () => {
  const { root } = await makeTree()
  const token = `dshkit-leak-${process.pid}-${Date.now()}`
  const { shell } = await bootSandbox(root)
  // env -i drops every marker a reaper could look for: only the pid namespace can end these.
  const result = await shell.run({
    command: `env -i setsid nohup sh -c 'while :; do sleep 1; done' ${token}-a >/dev/null 2>&1 & env -i sh -c 'sleep 300' ${token}-b </dev/null >/dev/null 2>&1 & disown; echo started`,
  })
  expect(result.stdout.text).toBe('started\n')
  await eventually(() => expect(hostProcessesWith(token)).toEqual([]), { timeoutMs: 3000 })
})

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bootSandbox, makeTree, SECRET } from './helpers.js'

afterEach(cleanup)

// Where a command can pile up deny-glob matches: in one folder, spread over many, or in the root itself.
const PILES = [
  { where: 'in one folder', make: `mkdir junk && cd junk && for i in $(seq 5000); do echo ${SECRET} > .env.$i; done` },
  { where: 'one per folder', make: `mkdir -p spread/d{1..5000} && for i in $(seq 5000); do echo ${SECRET} > spread/d$i/.env; done` },
  { where: 'in the root', make: `for i in $(seq 5000); do echo ${SECRET} > .env.pile$i; done` },
]

test('5,000 deny-glob matches a command made never lock the shell out: later calls run, nothing is read (corpus)', async () => {
  for (const { where, make } of PILES) {
    const { root } = await makeTree()
    const { shell } = await bootSandbox(root)
    expect((await shell.run({ command: `${make} && echo made` })).stdout.text, where).toBe('made\n')
    const later = await shell.run({ command: 'cat .env* junk/.env.1 spread/d1/.env 2>/dev/null; grep -ra CANARY . 2>/dev/null; echo ran' })
    expect(later.error, where).toBeUndefined()
    expect(later.stdout.text, where).toBe('ran\n')
    // The cleanup runs too (hidden files cannot be removed from inside, by design), and the host keeps every file.
    const cleaning = await shell.run({ command: 'rm -rf junk spread .env.pile* 2>/dev/null; echo cleaned' })
    expect(cleaning.stdout.text, where).toBe('cleaned\n')
    expect(readFileSync(join(root, '.env'), 'utf8')).toContain(SECRET)
  }
}, 180_000)

test('a pile in one folder hides that folder whole; the rest of the root is still there', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  await shell.run({ command: 'mkdir junk && cd junk && touch .env.{1..3000} && echo made' })
  const result = await shell.run({ command: 'cat file.txt; ls -A junk | wc -l; echo x > new.txt && echo wrote' })
  expect(result.stdout.text).toBe('inside file0\nwrote\n')
}, 60_000)

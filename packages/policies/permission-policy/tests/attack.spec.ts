import { cleanup } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import type { ConfigInput } from '../src/index.js'
import { setup } from './helpers.js'

afterEach(cleanup)

/** A permissive set-up (the README's `default: allow`) with deny rules that must still hold. */
const permissive: ConfigInput = {
  default: 'allow',
  rules: [
    { tool: 'shell', command: ['rm *'], decision: 'deny' },
    { tool: 'shell', writes: ['**/.env*'], decision: 'deny' },
  ],
}

/** What happened to one line: ran, asked (and refused, as headless approval does) or denied outright. */
async function decide(config: ConfigInput, command: string) {
  const { ran, asked, run } = await setup(config, async () => ({ kind: 'deny', reason: 'headless' }))
  await run('shell', { command })
  return ran.length ? 'allow' : asked.length ? 'ask' : 'deny'
}

test.each([
  // bash joins `r\⏎m` into `rm`; the grammar read two words.
  ['r\\\nm -rf /', 'ask'],
  // options after -c: the script is the first operand.
  ["bash -c -- 'rm -rf /'", 'deny'],
  ["bash -c -e 'rm -rf /'", 'deny'],
  // a shell reading stdin runs text no rule read.
  ["echo 'rm -rf /' | bash", 'ask'],
  ["bash <<< 'rm -rf /'", 'ask'],
  // the grammar splits a coproc's compound body at its `;`.
  ['coproc X { rm -rf /; }', 'ask'],
  ['coproc { rm -rf /; }', 'ask'],
  // `> .en*` writes .env when it exists.
  ['echo x > .en*', 'ask'],
  ['echo x > .e[n]v', 'ask'],
  // bash globs a program name and brace-expands words.
  ['/???/r? -rf /', 'ask'],
  ['/bin/r? -rf /', 'ask'],
  // builtins that store text run later.
  ["shopt -s expand_aliases; alias ls='rm -rf /'\nls -rf /", 'ask'],
  ["trap 'rm -rf /' EXIT", 'ask'],
  ['hash -p /bin/rm ls; ls -rf /', 'ask'],
  ["builtin eval 'rm -rf /'", 'ask'],
  // a prompt expansion runs the $(…) stored in a value.
  ["x='$(rm -rf /)'; echo ${x@P}", 'ask'],
  // launchers are peeled like timeout and nice; those that run a shell string are opaque.
  ['setsid rm -rf /', 'deny'],
  ['ionice -c3 rm -rf /', 'deny'],
  ['busybox rm -rf /', 'deny'],
  ["su root -c 'rm -rf /'", 'ask'],
  ["watch 'rm -rf /'", 'ask'],
  // a redirection alone, or on a function or a test, still writes the file.
  ['>.env', 'deny'],
  ['[[ -n x ]] > .env', 'deny'],
  ['f() { echo x; } > .env; f', 'deny'],
])('default allow does not let %j slip past the deny rules (→ %s)', async (line, expected) => {
  expect(await decide(permissive, line)).toBe(expected)
})

test('a bare PATH=… statement is a command an allow rule must cover (PATH=/tmp; git status runs /tmp/git)', async () => {
  const config: ConfigInput = { default: 'ask', rules: [{ tool: 'shell', command: ['ls', 'git status*'], decision: 'allow' }] }
  expect(await decide(config, 'ls; git status')).toBe('allow')
  expect(await decide(config, 'ls; PATH=/tmp; git status')).toBe('ask')
  expect(await decide({ ...config, rules: [...config.rules!, { tool: 'shell', command: 'PATH=*', decision: 'allow' }] }, 'PATH=/tmp; git status')).toBe('allow')
})

test("a globbed redirect target never falls under an allow rule's writes", async () => {
  const config: ConfigInput = {
    default: 'ask',
    rules: [
      { tool: 'shell', command: 'echo *', writes: '*', decision: 'allow' },
      { tool: 'shell', writes: '**/.env*', decision: 'deny' },
    ],
  }
  expect(await decide(config, 'echo x > notes.txt')).toBe('allow')
  expect(await decide(config, 'echo x > .en*')).toBe('ask')
})

test("a brace expansion in a denied command's flags is asked about, not allowed (rm -r{f,} / is rm -rf -r /)", async () => {
  const config: ConfigInput = { default: 'allow', rules: [{ tool: 'shell', command: 'rm -rf *', decision: 'deny' }] }
  expect(await decide(config, 'rm -rf /')).toBe('deny')
  expect(await decide(config, 'rm -r{f,} /')).toBe('ask')
})

test('a line that sets HOME cannot hide a write behind ~ (HOME=/etc; echo x > ~/passwd writes /etc/passwd)', async () => {
  const config: ConfigInput = { default: 'allow', rules: [{ tool: 'shell', writes: '/etc/**', decision: 'deny' }] }
  expect(await decide(config, 'echo x > /etc/passwd')).toBe('deny')
  expect(await decide(config, 'HOME=/etc; echo x > ~/passwd')).toBe('ask')
  expect(await decide(config, 'export HOME=/etc; echo x > ~/passwd')).toBe('ask')
  expect(await decide(config, 'read HOME <<< /etc; echo x > ~/passwd')).toBe('ask')
  expect(await decide(config, 'echo x > ~/notes.txt')).toBe('allow')
})

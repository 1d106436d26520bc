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

test('a bare PATH=… statement cannot be judged (PATH=/tmp; git status runs /tmp/git)', async () => {
  const config: ConfigInput = { default: 'ask', rules: [{ tool: 'shell', command: ['ls', 'git status*'], decision: 'allow' }] }
  expect(await decide(config, 'ls; git status')).toBe('allow')
  expect(await decide(config, 'ls; PATH=/tmp; git status')).toBe('ask')
  // Setting PATH is outside what the judge models: no allow rule covers it.
  expect(await decide({ ...config, rules: [...config.rules!, { tool: 'shell', command: 'PATH=*', decision: 'allow' }] }, 'PATH=/tmp; git status')).toBe('ask')
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

/** The judge models a closed set of constructs; under `default: allow`, anything outside it is asked about, never run. */
const closed: ConfigInput = {
  default: 'allow',
  rules: [
    { tool: 'shell', command: ['rm *', 'rm'], decision: 'deny' },
    { tool: 'shell', writes: ['**/.git/**'], decision: 'deny' },
  ],
}

test.each([
  // brace expansion building the program name
  'r{m,} victim',
  '{r,}m victim',
  'env r{m,} victim',
  // globbed program names, behind wrappers too
  'env /bin/r? victim',
  'timeout 5 /bin/r[m] victim',
  'nice /???/rm victim',
  'xargs /bin/r* victim < /dev/null',
  'command /bin/r? victim',
  // a shell reading its script from stdin or a file
  "bash /dev/stdin <<< 'rm victim'",
  'bash script.sh',
  'sh < file',
  "echo 'rm victim' | env bash",
  'source ./x',
  '. ./x',
  // shell options that take a value, or read files, before -c
  "bash --rcfile /dev/null -c 'rm victim'",
  "bash --init-file /dev/null -c 'rm victim'",
  "bash -o posix -c 'rm victim'",
  "bash -O extglob -c 'rm victim'",
  "bash +O extglob -c 'rm victim'",
  "bash -l -c 'true'",
  "bash -i -c 'true'",
  // attached and abbreviated option forms
  "env -S'rm victim'",
  "env -iS'rm victim'",
  "env --split='rm victim'",
  "env --sp 'rm victim'",
  'xargs -I{} {} victim',
  'xargs -i{} {} victim',
  'xargs --replace=X X victim',
  'timeout --sig=9 5 $X victim',
  'env --frobnicate true',
  // substitutions the parser does not read
  'ls <<EOF\n`rm victim`\nEOF',
  'cat <<EOF\na `rm victim` b\nEOF',
  // steering variables
  "BASH_ENV=./x bash -c 'true'",
  'env BASH_ENV=./x bash -c true',
  "env 'BASH_FUNC_echo%%=() { rm victim; }' bash -c 'echo hi'",
  'PATH=/tmp/x:$PATH; ls',
  'export PATH=/tmp/x',
  'IFS=/; ls',
  "PS4='$(rm victim)'; set -x; true",
  'read PATH < f',
  'for PATH in /tmp; do ls; done',
  'BASH_CMDS[ls]=/bin/rm; ls victim',
  // arithmetic and subscripts that re-read values
  'echo $(( $(echo 1) ))',
  'x=1; echo $((x))',
  'a[$(echo 1)]=1',
  'a[i]=1',
  '[[ -v a[$(echo 1)] ]]',
  '[[ $x -eq 1 ]]',
  'printf -v "a[$x]" y',
  'declare -i x=y',
  'declare -n r=PATH',
  'let x=1',
  "unset 'a[$(echo 1)]'",
  'test -v "a[$x]"',
  'echo ${!x}',
  'echo ${x:$n}',
  'for ((i=0; i<1; i++)); do true; done',
  // stored code
  "trap 'rm victim' EXIT",
  "compgen -C 'rm victim' x",
  'eval rm victim',
  // a program name from $'…' or a launcher not modelled
  "$'\\x72m' victim",
  'strace -o /dev/null true',
  'chrt 0 true',
])('outside the modelled set, asked about under default: allow: %j', async (line) => {
  expect(await decide(closed, line)).toBe('ask')
})

test.each([
  // a line that can make links or move files cannot be judged for writes
  'ln -sfn .git g && echo x > g/y',
  'ln -s .git g; echo x >> g/config',
  'cp -s .git/config c && echo x > c',
  'mv g h && echo x > h/y',
  'ln .git/config c; echo x > c',
])('a line that makes links and writes is asked about, not passed by a writes deny: %j', async (line) => {
  expect(await decide(closed, line)).toBe('ask')
})

test.each([
  ['timeout -s9 5 rm victim', 'deny'],
  ['env -u X rm victim', 'deny'],
  ["bash -ec 'rm victim'", 'deny'],
  ['xargs -0 rm < /dev/null', 'deny'],
  ['xargs < /dev/null', 'allow'],
  ['ls <<EOF\n$(rm victim)\nEOF', 'deny'],
  ['echo ${x:-$(rm y)}', 'deny'],
  ['echo $(( 1 + 2 ))', 'allow'],
  ['echo hi > out.txt', 'allow'],
  ['ln -s a b', 'allow'],
])('inside the modelled set the rules decide: %j → %s', async (line, expected) => {
  expect(await decide(closed, line)).toBe(expected)
})

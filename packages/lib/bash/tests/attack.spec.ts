import { beforeAll, expect, test } from 'vitest'
import { loadCommandParser, parseCommandLine } from '../src/index.js'

beforeAll(() => loadCommandParser())

const parsed = (line: string) => {
  const result = parseCommandLine(line)
  if (!result.ok) throw new Error(result.reason)
  return result.commands
}

test('a backslash-newline glued inside a word (r\\⏎m, which bash runs as rm) makes the line unjudgeable', () => {
  const result = parseCommandLine('r\\\nm -rf /')
  expect(result.ok).toBe(false)
  expect(!result.ok && result.reason).toMatch(/backslash-newline/)
  // A continuation between words, or inside quotes, is still read.
  expect(parsed('git status \\\n  --short')[0].argv.map((w) => w.value)).toEqual(['git', 'status', '--short'])
  expect(parsed('echo "a\\\nb" \'c\\\nd\'')[0].argv.map((w) => w.value)).toEqual(['echo', 'ab', 'c\\\nd'])
})

test.each([["bash -c -- 'rm -rf /'"], ["bash -c -e 'rm -rf /'"], ["sh -ec 'rm -rf /'"], ["bash -x -c 'rm -rf /'"]])(
  'options after -c do not hide the script: %s',
  (line) => {
    expect(parsed(line).map((c) => c.argv.map((w) => w.value).join(' '))).toEqual(['rm -rf /'])
  },
)

test.each([
  ["echo 'rm -rf /' | bash"],
  ["bash <<< 'rm -rf /'"],
  ["bash /dev/stdin <<< 'rm -rf /'"],
  ['bash -s < script.sh'],
  ['sh -'],
  ['bash -i'],
  ['bash script.sh'],
  ['sh < file'],
  ["bash --rcfile /dev/null -c 'rm -rf /'"],
  ["bash -o posix -c 'rm -rf /'"],
  ["bash -O extglob -c 'rm -rf /'"],
  ["sh -c -o errexit 'rm -rf /'"],
  ["bash -l -c 'true'"],
  ["bash --norc -c 'true'"],
])('a shell reading a script from stdin or a file, or taking an option the judge does not model, is opaque: %s', (line) => {
  expect(parsed(line).some((c) => c.opaque && /stdin|a file|does not model/.test(c.opaque))).toBe(true)
})

test.each([['coproc X { rm -rf /; }'], ['coproc { rm -rf /; }'], ['coproc for i in 1; do rm x; done'], ['time for i in 1; do rm x; done'], ['! { rm x; }']])(
  'a keyword the grammar does not know, before a compound command, is opaque or unjudgeable: %s',
  (line) => {
    const result = parseCommandLine(line)
    expect(!result.ok || result.commands.some((c) => c.opaque)).toBe(true)
  },
)

test('a statement of bare assignments is a command of its own', () => {
  const commands = parsed('ls; A=/tmp; git status')
  expect(commands.map((c) => c.argv.map((w) => w.value).join(' '))).toEqual(['ls', 'A=/tmp', 'git status'])
  expect(parsed('a=1 b=2').map((c) => c.argv.map((w) => w.value))).toEqual([['a=1', 'b=2']])
  // A prefix assignment stays a wrapper of its command, not a second command.
  expect(parsed('X=1 git status')).toHaveLength(1)
})

test.each([
  ['echo x > .en*', '.en*'],
  ['echo x > .en?', '.en?'],
  ['echo x > .e[n]v', '.e[n]v'],
  ['echo x > ~root/.env', '~root/.env'],
  ['echo x > a"b"*', 'a"b"*'],
])('a redirect target bash expands at run time is dynamic: %s', (line, text) => {
  const [redirect] = parsed(line)[0].redirects
  expect(redirect.target).toEqual({ value: text, dynamic: true })
})

test.each([
  ['echo x > ".en*"', '.en*'],
  ['echo x > \\.en\\*', '.en*'],
  ['echo x > ~/.env', '~/.env'],
])('a quoted or escaped star, or ~/, stays a known target: %s', (line, value) => {
  expect(parsed(line)[0].redirects[0].target).toEqual({ value, dynamic: false })
})

test.each([['/???/r? -rf /'], ['/bin/r* -rf /'], ['r[m] x'.replace('r[m]', '/bin/r[m]')]])('a globbed program name is only known at run time: %s', (line) => {
  expect(parsed(line)[0].opaque).toMatch(/only known at run time/)
})

test.each([
  ['rm -r{f,} /', '-r{f,}'],
  ['rm {-rf,/}', '{-rf,/}'],
  ['echo a{1..3}', 'a{1..3}'],
])('a brace expansion makes the word dynamic: %s', (line, text) => {
  expect(parsed(line)[0].argv[1]).toEqual({ value: text, dynamic: true })
})

test.each([
  ['echo "{a,b}"', '{a,b}'],
  ['echo \\{a,b}', '{a,b}'],
  ['find . -exec grep x {} \\;', '.'],
])('quoted or escaped braces, and {}, stay as written: %s', (line, value) => {
  expect(parsed(line)[0].argv[1]).toEqual({ value, dynamic: false })
})

test.each([
  ["shopt -s expand_aliases; alias ls='rm -rf /'\nls", /alias/],
  ["trap 'rm -rf /' EXIT", /trap/],
  ['hash -p /bin/rm ls; ls -rf /', /hash/],
  ['enable -f /tmp/x.so rm', /enable/],
  ["mapfile -C 'rm -rf /' x", /mapfile -C/],
  ["readarray -C 'rm -rf /' x", /readarray -C/],
  ["builtin eval 'rm -rf /'", /eval/],
])('builtins that run stored text later are opaque: %j', (line, reason) => {
  expect(parsed(line).some((c) => c.opaque && reason.test(c.opaque))).toBe(true)
})

test.each([['alias'], ['trap - EXIT'], ['trap -p'], ['hash'], ['builtin echo hi']])('the same builtins listing or resetting are plain: %s', (line) => {
  expect(parsed(line).every((c) => !c.opaque)).toBe(true)
})

test.each([['constructor x'], ['__proto__'], ['toString'], ['hasOwnProperty y']])(
  'a program named like an Object.prototype key is a plain command: %s',
  (line) => {
    const [command] = parsed(line)
    expect(command.opaque).toBeUndefined()
    expect(command.wrappers).toEqual([])
  },
)

test.each([["x='$(rm -rf /)'; echo ${x@P}"], ['echo "a${x@P}"']])(
  'a ${…@P} prompt expansion (which runs the $(…) in a value) makes the line unjudgeable: %s',
  (line) => {
    const result = parseCommandLine(line)
    expect(!result.ok && result.reason).toMatch(/@P/)
    expect(parseCommandLine('echo ${x@Q}').ok).toBe(true)
  },
)

test.each([
  ['setsid -f rm -rf /', 'setsid -f'],
  ['ionice -c 3 -n 7 rm -rf /', 'ionice -c 3 -n 7'],
  ['taskset -c 0 rm -rf /', 'taskset -c 0'],
  ['flock /tmp/lock rm -rf /', 'flock /tmp/lock'],
  ['unbuffer rm -rf /', 'unbuffer'],
  ['busybox rm -rf /', 'busybox'],
  ['chroot / rm -rf /', 'chroot /'],
])('the launcher is peeled off: %s', (line, wrapper) => {
  const [command] = parsed(line)
  expect(command.argv.map((w) => w.value).join(' ')).toBe('rm -rf /')
  expect(command.wrappers.map((w) => w.map((x) => x.value).join(' '))).toEqual([wrapper])
})

test.each([
  ["flock /tmp/l -c 'rm -rf /'"],
  ["su root -c 'rm -rf /'"],
  ["echo 'rm -rf /' | su"],
  ["runuser root -c 'rm -rf /'"],
  ["script -qc 'rm -rf /'"],
  ["watch -n 1 'rm -rf /'"],
  ['strace -o /tmp/x rm -rf /'],
  ['runuser -u root -- rm -rf /'],
  ['chrt 0 rm -rf /'],
])('a launcher that runs a shell string, or is not modelled, is opaque: %s', (line) => {
  expect(parsed(line).some((c) => c.opaque)).toBe(true)
})

test.each([['ionice -p 123'], ['taskset -p 1 123']])('a launcher acting on a running process runs nothing: %s', (line) => {
  const [command] = parsed(line)
  expect(command.wrappers).toEqual([])
  expect(command.opaque).toBeUndefined()
})

test.each([['>.env'], ['>> .env'], ['[[ -n x ]] > .env'], ['(( 1 )) > .env']])(
  "a redirection with no command still writes its file, as bash's null command: %s",
  (line) => {
    const commands = parsed(line)
    expect(commands).toHaveLength(1)
    expect(commands[0].argv).toEqual([{ value: ':', dynamic: false }])
    expect(commands[0].redirects.map((r) => [r.target.value, r.access])).toEqual([['.env', 'write']])
  },
)

test("a function's own redirection applies to its body (f() { echo x; } > .env; f)", () => {
  const [body] = parsed('f() { echo x; } > .env; f')
  expect(body.argv.map((w) => w.value)).toEqual(['echo', 'x'])
  expect(body.redirects.map((r) => r.target.value)).toEqual(['.env'])
})

test('a redirected command gets no null command beside it', () => {
  expect(parsed('echo x > out/a').map((c) => c.argv[0].value)).toEqual(['echo'])
  expect(parsed('{ echo a; } > out/a').map((c) => c.argv[0].value)).toEqual(['echo'])
})

test.each([
  ['env - rm x'],
  ['env -i -- X=1 rm x'],
  ['timeout -s9 5 rm x'],
  ['timeout --sig=KILL -k1 5 rm x'],
  ['nice -5 rm x'],
  ['nice --adj=3 rm x'],
  ['stdbuf -oL -e0 rm x'],
  ['xargs -0rn1 rm x'],
  ['xargs -I{} rm x {}'],
  ['sudo -nu root rm x'],
  ['command -p -- rm x'],
  ['exec -a name rm x'],
  ['time -p rm x'],
  ['coproc A=1 rm x'],
  ['flock -w 1 /tmp/l rm x'],
])('a wrapper spelled with bundled, glued or abbreviated options still peels to its command: %s', (line) => {
  const [command] = parsed(line)
  expect(command.opaque).toBeUndefined()
  expect(command.argv.slice(0, 2).map((w) => w.value)).toEqual(['rm', 'x'])
})

test.each([['env -Q rm x'], ['timeout --frob 5 rm x'], ['xargs --max 1 rm x'], ['nice -z rm x'], ['sudo -s rm x'], ["flock /tmp/l -c 'rm x'"], ['chroot /']])(
  'a wrapper option outside its grammar (unknown, ambiguous, or running a shell) makes the command opaque: %s',
  (line) => {
    expect(parsed(line).some((c) => c.opaque)).toBe(true)
  },
)

// Each line, run, deletes victim through a program that runs code or commands written in its own arguments (or read from stdin).
test.each([
  `awk 'BEGIN{system("rm victim")}'`,
  `gawk -v x=1 'BEGIN{system("rm victim")}'`,
  `perl -e 'unlink "victim"'`,
  `perl -lne 1 -e 'system("rm victim")' /dev/null`,
  `perl -Mstrict -e 'unlink "victim"'`,
  `echo 'unlink "victim"' | perl`,
  `perl - <<< 'unlink "victim"'`,
  `python3 -c 'import os; os.remove("victim")'`,
  `python3 -Sc 'import os; os.remove("victim")'`,
  `python3 - <<< 'import os; os.remove("victim")'`,
  `python3.12 /dev/stdin <<< 'import os; os.remove("victim")'`,
  `node -e 'require("fs").rmSync("victim")'`,
  `node --eval='require("fs").rmSync("victim")'`,
  `node -p 'require("fs").rmSync("victim")'`,
  `ruby -e 'File.delete("victim")'`,
  `php -r 'unlink("victim");'`,
  `echo | sed -n '1e rm victim'`,
  `sed 's/.*/rm victim/e' f`,
  `sed --expression='1e rm victim' f`,
  `sed -f script.sed f`,
  `git -c core.pager='rm victim' log`,
  `git -c alias.x='!rm victim' x`,
  `git --config-env=core.pager=X log`,
  `tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm victim' f`,
  `tar -xf a.tar --to-command='rm victim'`,
  `tar -I 'rm victim' -xf a.tar`,
  `tar -xIf 'rm victim' a.tar`,
  `make -f /dev/stdin <<< $'a:\n\trm victim'`,
  `make --eval=$'a:\n\trm victim' a`,
  `gdb -batch -ex run --args rm victim`,
  `npm exec -- rm victim`,
  `pnpm dlx rimraf victim`,
  `npx rimraf victim`,
  `rsync -e 'rm victim' a b:`,
  `vim -c '!rm victim' -c q`,
  `vim '+!rm victim' f`,
  `sqlite3 :memory: '.shell rm victim'`,
  `ssh -o ProxyCommand='rm victim' h`,
  `ex f <<< '!rm victim'`,
  `ed f <<< '!rm victim'`,
  `vim -es f <<< '!rm victim'`,
  `tclsh <<< 'exec rm victim'`,
  `tclsh8.6 /dev/stdin <<< 'exec rm victim'`,
  `wish <<< 'exec rm victim'`,
  `irb <<< 'File.delete("victim")'`,
  `guile -c '(system "rm victim")'`,
  `julia -e 'rm("victim")'`,
  `racket -e '(delete-file "victim")'`,
  `sbcl --eval '(delete-file "victim")'`,
  `elixir -e 'File.rm("victim")'`,
  `erl -noshell -eval 'file:delete("victim")' -s init stop`,
  `R -e 'file.remove("victim")'`,
  `R --vanilla <<< 'file.remove("victim")'`,
  `pwsh -c 'Remove-Item victim'`,
  `pwsh -Command - <<< 'Remove-Item victim'`,
  `at now <<< 'rm victim'`,
  `batch <<< 'rm victim'`,
  `echo '* * * * * rm victim' | crontab -`,
  `perf stat rm victim`,
  `perf record -o /dev/null -- rm victim`,
  `git rebase -x 'rm victim' HEAD~1`,
  `git rebase --exec='rm victim' HEAD~1`,
  `git bisect run rm victim`,
  `git -C . submodule foreach 'rm victim'`,
  `git filter-branch --tree-filter 'rm victim' HEAD`,
  `git grep -O'rm victim' x`,
  `git difftool -x 'rm victim'`,
  `git fetch --upload-pack='rm victim' .`,
  `git clone -u 'rm victim' . y`,
  `git push --receive-pack='rm victim' . HEAD`,
  `zip -T -TT 'rm victim' a.zip f`,
  `man -P 'rm victim' ls`,
  `man --pager='rm victim' ls`,
  `less '+!rm victim' f`,
  `mail -s x a@b <<< '~!rm victim'`,
  `xdg-open victim.desktop`,
  // The same options bundled with others or abbreviated, as getopt and git's parse-options take them.
  `git rebase -ix 'rm victim' HEAD~1`,
  `git rebase -kx 'rm victim' HEAD~1`,
  `git rebase --exe='rm victim' HEAD~1`,
  `git grep -nO'rm victim' x`,
  `git fetch --upload='rm victim' .`,
  `rsync -avze 'rm victim' a b:`,
  `rsync --rs='rm victim' a b:`,
  `scp -qS 'rm victim' a b:`,
  `man -aP 'rm victim' ls`,
  `man --pag='rm victim' ls`,
  `vim -Rc '!rm victim' f`,
  `make --ev=$'a:\n\trm victim' a`,
  `tar -xf a.tar --to-c='rm victim'`,
  `make -sE $'a:\n\trm victim' a`,
  `emacs -batch -eval '(delete-file "victim")'`,
  `emacs --ev='(delete-file "victim")'`,
])('a program that runs code or commands written in its arguments is opaque: %s', (line) => {
  expect(parsed(line).some((c) => c.opaque)).toBe(true)
})

test.each([
  'awk -f prog.awk f',
  'python3 script.py --flag',
  'python3 -m pytest -q',
  'perl -w script.pl',
  'node --test',
  "sed -n 's/a/b/gp' f",
  "sed -i 's/a/b/' f",
  "sed -e '1,3d' -e 's/x/y/' f",
  "sed -n '/start/,/end/p' f",
  'git log --oneline',
  'git -C sub status',
  'tar -xzf a.tgz',
  'make test',
  'npm test',
  'tclsh build.tcl',
  'R CMD check pkg',
  'julia script.jl',
  'pwsh build.ps1',
  'git rebase -i HEAD~2',
  'git grep -n TODO',
  'git fetch origin',
  'git push origin main',
  'zip -r a.zip dir',
  'man ls',
  'man -a ls',
  'less f',
  'git grep -in TODO',
  'git rebase --continue',
  'rsync -avz a b:',
  'zip -T a.zip',
])('the same programs running a file, or a script the judge reads as harmless, stay plain: %s', (line) => {
  expect(parsed(line).every((c) => !c.opaque)).toBe(true)
})

test.each([
  // Found by the fuzz oracle: the grammar ended the body at `EOF && …`, bash read the rest as body and ran its `$(…)`.
  ["cat <<EOF\n$(true)\nEOF && time cat <<'EOF'\n$(env -u X t{rue,})\nEOF"],
  ['cat <<EOF\nEOF; rm x\nEOF'],
  ['cat <<EOF\n EOF\n$(rm x)\nEOF'],
  ['cat <<EOF\nEOF \n$(rm x)\nEOF'],
  ['cat <<-EOF\n\tEOFX\n$(rm x)\nEOF'],
  ["cat <<'E'F\nEF;\n$(rm x)\nEF"],
])('a heredoc bash ends later than the grammar does is unjudgeable: %j', (line) => {
  const result = parseCommandLine(line)
  expect(result.ok, JSON.stringify(result)).toBe(false)
  expect(!result.ok && result.reason).toMatch(/heredoc|cannot read/)
})

test.each([
  ['cat <<EOF\nhello\nEOF'],
  ['cat <<-EOF\n\thello\n\t\tEOF'],
  ["cat <<'E F'\nhello\nE F"],
  ['cat <<"EOF"\n$(not run)\nEOF'],
  ['cat <<\\EOF\nhi\nEOF\necho done'],
  ['cat <<EOF | wc -l\na\nEOF\necho after'],
])('a heredoc that ends where bash ends it is read: %j', (line) => {
  const commands = parsed(line)
  expect(commands[0].argv[0].value).toBe('cat')
})

test.each([
  // Found by hunting: under an unquoted delimiter bash joins `EO\⏎F` into `EOF` and ends the body there.
  ['cat <<EOF\nEO\\\nF\nrm x\nEOF'],
  ['cat <<EOF\nE\\\nOF\nrm x\nEOF'],
  ['cat <<EOF\nE\\\nO\\\nF\nrm x\nEOF'],
  ['cat <<-EOF\n\tEO\\\nF\nrm x\nEOF'],
  ['cat <<EOF\n\\\nEOF\nrm x\nEOF'],
  ["bash -c 'cat <<EOF\nEO\\\nF\nrm x\nEOF'"],
  ['echo $(cat <<EOF\nEO\\\nF\nrm x\nEOF\n)'],
])('a backslash-newline that makes a heredoc delimiter line is unjudgeable: %j', (line) => {
  const result = parseCommandLine(line)
  expect(result.ok, JSON.stringify(result)).toBe(false)
  expect(!result.ok && result.reason).toMatch(/heredoc/)
})

test.each([
  ['cat <<EOF\nfoo \\\nbar\nEOF', 'cat'],
  ['cat <<EOF\nEO\\\\\nF\nEOF', 'cat'],
  ["cat <<'EOF'\nEO\\\nF\nEOF", 'cat'],
])('a heredoc with a backslash-newline that makes no delimiter line is read: %j', (line, program) => {
  expect(parsed(line).map((c) => c.argv[0].value)).toEqual([program])
})

test.each([
  // Found by hunting: bash ends a backtick substitution at the first backtick, even inside a heredoc body.
  ["echo `cat <<'EOF'\n`; rm x; echo `\nEOF\n`"],
  ['echo `cat <<"EOF"\n`; rm x; echo `\nEOF\n`'],
  ['echo `cat <<\\EOF\n`; rm x; echo `\nEOF\n`'],
  ['echo `cat <<EOF\nx`; rm x; echo `\nEOF\n`'],
])('a heredoc inside backticks whose body holds a backtick is unjudgeable: %j', (line) => {
  expect(parseCommandLine(line).ok).toBe(false)
})

test.each([
  // Found by hunting: the grammar read `$'\\' ; rm x #'` as one string, bash ends it after `\\`.
  ["echo $'\\\\' ; rm x #'"],
  ["echo $'\\\\\\\\' ; rm x #'"],
  ["echo a$'\\\\'b ; rm x #'"],
  ["x=$'\\\\'; rm x #'"],
  ["echo $'a' $'\\\\' ; rm x #'"],
])('an ANSI-C string the grammar ends later than bash is unjudgeable: %j', (line) => {
  const result = parseCommandLine(line)
  expect(result.ok, JSON.stringify(result)).toBe(false)
  expect(!result.ok && result.reason).toMatch(/does not end where bash ends it/)
})

test.each([["echo $'\\\\'"], ["echo $'a\\tb' $'\\''"], ["echo $'\\x41'"]])('an ANSI-C string bash reads the same way is plain: %j', (line) => {
  expect(parsed(line).map((c) => c.argv[0].value)).toEqual(['echo'])
})

test.each([
  // Found by hunting: `\ #b` is one word to bash (an escaped blank glued to `#`), a comment to the grammar.
  ['echo \\ #b ; rm x'],
  ['echo \\\t#b ; rm x'],
  ['echo "a" \\ #; rm x'],
  ["bash -c 'echo \\ #; rm x'"],
])('a `#` glued to an escaped blank is no comment to bash, and unjudgeable: %j', (line) => {
  const result = parseCommandLine(line)
  expect(result.ok, JSON.stringify(result)).toBe(false)
  expect(!result.ok && result.reason).toMatch(/not a comment/)
})

test.each([['echo \\\\ #b ; rm x'], ['echo a \\\n#b; rm x'], ['echo a;#x'], ['(#x\ntrue)'], ['echo $( #x\ntrue)'], ['echo a&&#x\ntrue']])(
  'a comment bash also starts is read: %j',
  (line) => {
    expect(parsed(line).some((c) => c.argv[0].value === 'rm')).toBe(false)
  },
)

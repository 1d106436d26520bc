/** A small seeded PRNG (mulberry32): the same seed gives the same lines. */
export function random(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]
  return { next, pick }
}

type Rng = ReturnType<typeof random>

/** `DSHKIT_FUZZ_SEED`: fixed by default, so a green main stays green; `random` hunts new lines (`pnpm --filter @dshkit/bash fuzz`). */
export function fuzzSeed(): number {
  const given = process.env.DSHKIT_FUZZ_SEED
  return given === 'random' ? Date.now() % 2 ** 31 : Number(given ?? 20261207)
}

/** Single quotes around any text, as bash reads it back. */
export const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

// Spellings of the program name, for rm (the denied one) and the harmless ones.
const NAMES: Record<string, readonly string[]> = {
  rm: [
    'rm',
    "'rm'",
    '"r"m',
    '\\rm',
    'r""m',
    '/bin/rm',
    '/usr/bin/rm',
    'r{m,}',
    '{r,}m',
    '/bin/r?',
    '/bin/r[m]',
    '/???/rm',
    "$'\\x72m'",
    '$(echo rm)',
    '${u:-rm}',
    '`echo rm`',
  ],
  true: ['true', '/bin/true', "'true'", 't{rue,}', '/bin/tru?'],
  echo: ['echo', '/bin/echo', 'ech""o'],
  touch: ['touch', '/usr/bin/touch', 'tou{ch,}'],
}
const ARGS: Record<string, string> = { rm: 'victim', true: '', echo: 'hi', touch: 'marker' }

const WRAPPERS = [
  'env',
  'env -i PATH=/usr/bin:/bin',
  'env X=1',
  'env -u X',
  'env -uX',
  'env --',
  'env -',
  'env - PATH=/usr/bin:/bin',
  'timeout 5 --foreground',
  'nice --adjustment=1',
  'nice -5',
  'xargs -I{}',
  'xargs --no-run',
  'command --',
  'setsid -w',
  'flock /tmp/dshkit-fuzz.lock',
  'taskset 1',
  'ionice -c3',
  'timeout 5',
  'timeout -s9 5',
  'timeout -sKILL 5',
  'timeout --signal=9 5',
  'timeout -k 1 5',
  'nice',
  'nice -n 1',
  'nice -n1',
  'command',
  'command -p',
  'time',
  'time -p',
  'stdbuf -oL',
  'stdbuf -o L',
  'nohup',
  'xargs',
  'xargs -r',
  'xargs -0',
  'xargs -n1',
  'builtin',
  'exec',
  'exec -a x',
]

/** A simple command: a program (spelled some way), perhaps behind wrappers. */
function simple(rng: Rng): string {
  const program = rng.pick(['rm', 'true', 'true', 'echo', 'touch'])
  let words = `${rng.pick(NAMES[program])} ${ARGS[program]}`.trim()
  for (let n = Math.floor(rng.next() * 3); n > 0; n--) {
    const wrapper = rng.pick(WRAPPERS)
    // `exec` ends the shell and xargs reads stdin: keep both from eating the rest.
    words = wrapper.startsWith('xargs') ? `${wrapper} ${words} < /dev/null` : wrapper.startsWith('exec') ? `(${wrapper} ${words})` : `${wrapper} ${words}`
  }
  return words
}

/** Ways a shell runs a script, modelled (`bash -c`) or not (`bash /dev/stdin <<<`, `--rcfile`). */
function shell(rng: Rng, script: string): string {
  const q = quote(script)
  return rng.pick([
    `bash -c ${q}`,
    `sh -c ${q}`,
    `bash -ec ${q}`,
    `bash -c -- ${q}`,
    `bash -x -c ${q} 2>/dev/null`,
    `bash --rcfile /dev/null -c ${q}`,
    `bash --norc -c ${q}`,
    `bash -o posix -c ${q}`,
    `bash -O extglob -c ${q}`,
    `bash /dev/stdin <<< ${q}`,
    `bash <<< ${q}`,
    `echo ${q} | bash`,
    `sh -s <<< ${q}`,
    `env bash -c ${q}`,
    `timeout 5 sh -c ${q}`,
    `eval ${q}`,
    `x=${q}; eval "$x"`,
    // Programs that run code written in their arguments or read from stdin.
    `awk ${quote(`BEGIN{system(${JSON.stringify(script)})}`)}`,
    `perl -e 'system($ARGV[0])' ${q}`,
    `python3 -c 'import os,sys; os.system(sys.argv[1])' ${q}`,
    `echo ${quote(`system(${JSON.stringify(script)})`)} | perl`,
    `node -e 'require("child_process").execSync(process.argv[1])' ${q}`,
    `echo | sed -n ${quote(`1e ${script.replace(/\n/g, ';')}`)}`,
  ])
}

/** Constructs that hold a command: lists, pipes, substitutions, bodies, heredocs and the rest. */
function nested(rng: Rng, inner: () => string): string {
  const a = inner()
  const forms: (() => string)[] = [
    () => `${a} && ${inner()}`,
    () => `${a} || ${inner()}`,
    () => `${a}; ${inner()}`,
    () => `${a} | ${inner()}`,
    () => `(${a})`,
    () => `{ ${a}; }`,
    () => `echo $(${a})`,
    () => `echo \`${a.replace(/[\\`$]/g, '\\$&')}\``,
    () => `cat <(${a})`,
    () => `! ${a}`,
    () => `if ${a}; then ${inner()}; fi`,
    () => `while false; do ${a}; done; ${inner()}`,
    () => `for i in 1; do ${a}; done`,
    () => `case x in x) ${a};; esac`,
    () => `f() { ${a}; }; f`,
    () => `cat <<EOF\n$(${a})\nEOF`,
    () => `ls <<EOF\n\`${a.replace(/[\\`$]/g, '\\$&')}\`\nEOF`,
    () => `cat <<'EOF'\n$(${a})\nEOF`,
    () => `echo \${x:-$(${a})}`,
    () => `echo $(( $(${a}) + 0 ))`,
    () => `a[$(${a})]=1`,
    () => `[[ -v a[$(${a})] ]]`,
    () => `trap ${quote(a)} EXIT`,
    () => `shopt -s expand_aliases; alias k=${quote(a)}\nk`,
    () => `x=${quote(`a[$(${a})]`)}; echo $((x))`,
    () => `printf -v ${quote(`a[$(${a})]`)} x`,
    () => `coproc ${a}`,
    () => `time ${a}`,
    () => `${a} \\\n && true`,
    () => `echo victim | xargs ${rng.pick(NAMES.rm)}`,
    () => `echo ${rng.pick(NAMES.rm)} | xargs -I{} {} victim`,
    () => `env -S${quote(a)}`,
    () => `BASH_ENV=<(echo ${quote(a)}) bash -c true`,
    () => `IFS=x; ${a}`,
    () => `PATH=/nonexistent:$PATH; ${a}`,
    () => `declare -a "a[$(${a})]"`,
    () => `typeset x=$(${a})`,
    () => `read -r x <<< ${quote(a)}; $x`,
    () => `exec 3>/dev/null; ${a}`,
    () => `${a} 2>&1 >/dev/null`,
    () => `[ -n "$(${a})" ]`,
    () => `echo "$(${a})"`,
    () => `cat <<< "$(${a})"`,
    () => `cat <<EOF\n\${x:-$(${a})}\nEOF`,
    // End lines bash does not take for the delimiter: what follows is still body.
    () => `cat <<EOF\nhi\nEOF; ${inner()}\n$(${a})\nEOF`,
    () => `cat <<'EOF'\nEOF && ${a}\nEOF\n${inner()}`,
    () => `cat <<-EOF\n\t$(${a})\n\tEOF\n${inner()}`,
    // Token ends bash and the grammar place differently: a joined delimiter line, a backtick in a
    // heredoc inside backticks, `$'\\'`, and `#` glued to an escaped blank.
    () => `cat <<${rng.pick(['EOF', '-EOF'])}\n${rng.pick(['EO\\\nF', 'E\\\nOF', '\\\nEOF'])}\n${a}\nEOF`,
    () => `echo \`cat <<'EOF'\n\`; ${a}; echo \`\nEOF\n\``,
    () => `echo $'\\\\' ; ${a} #'`,
    () => `echo \\ #; ${a}`,
    () => `echo $'\x41'; ${a}`,
    () => `command -v ${a}`,
    () => `find . -maxdepth 0 -exec ${a} \\;`,
    () => shell(rng, a),
  ]
  return rng.pick(forms)()
}

/** One line: a command, nested up to `depth` times. */
export function line(rng: Rng, depth = 3): string {
  const build = (level: number): string => (level <= 0 || rng.next() < 0.3 ? simple(rng) : nested(rng, () => build(level - 1)))
  return build(depth)
}

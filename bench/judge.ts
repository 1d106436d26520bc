// What does the command judge cost per line, next to the bare tree-sitter parse it starts from?
// And the fuzz oracle at bench size: lines generated from the grammar of bash constructs, the
// allowed ones run under strace, every program run checked against what the judge listed.
import { createRequire } from 'node:module'
import { loadCommandParser, parseCommandLine } from '@dshkit/bash'
import { fuzzSeed, line, random } from '../packages/lib/bash/tests/fuzz/grammar.js'
import { isDenied, judge, listedRun, traced } from '../packages/lib/bash/tests/fuzz/oracle.js'
import { compare, machine, size, table } from './support/measure.js'

const require = createRequire(new URL('../packages/lib/bash/package.json', import.meta.url))
const { Language, Parser } = (await import(require.resolve('web-tree-sitter'))) as typeof import('web-tree-sitter')
await Parser.init()
const bare = new Parser()
bare.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')))
await loadCommandParser()
// The oracle's helpers judge with the package's sources (as its tests do): that copy loads its parser too.
await (await import('../packages/lib/bash/src/index.js')).loadCommandParser()

const LINES = [
  'git status --short',
  'ls -la && pwd',
  'cat README.md | grep foo',
  "timeout 5 bash -c 'rm -rf / 2> log'",
  'find . -name "*.ts" -exec grep -l TODO {} +',
  'for f in $(ls); do echo "$f" > out/$f.txt; done',
  'cat <<EOF > f\nhello $(date)\nEOF',
  'env LANG=C git log --oneline -5 | head -3 && echo done || echo failed',
]

let at = 0
const next = () => LINES[at++ % LINES.length]
const perLine = await compare(
  {
    parse: () => bare.parse(next())!.delete(),
    judge: () => parseCommandLine(next()),
  },
  { rounds: 15, batch: 400, warmup: 400 },
)

const seed = fuzzSeed()
const count = size(5000, 40)
const rng = random(seed)
const generated = Array.from({ length: count }, () => line(rng))
const allowed = generated.map((text) => ({ text, ...judge(text) })).filter((entry) => entry.allowed)
const started = performance.now()
let failures = 0
for (let i = 0; i < allowed.length; i += 4) {
  const results = await Promise.all(allowed.slice(i, i + 4).map(async (entry) => ({ entry, ...(await traced(entry.text)) })))
  for (const { entry, executed, victimLeft } of results) {
    if (!victimLeft || executed.some((run) => !listedRun(run, entry.listed) || isDenied(run))) {
      failures++
      process.stderr.write(`judge: seed ${seed}: ${JSON.stringify(entry.text)} ran what the judge did not list\n`)
    }
  }
}
const seconds = (performance.now() - started) / 1000

console.log(`## judge

${machine()}. Median µs per line over ${LINES.length} lines (one word to a compound of ten commands), interleaved: the bare tree-sitter-bash parse against \`parseCommandLine\` (the parse, the closed-set check of every node and the commands listed).

${table(
  ['way', 'µs per line', 'ratio'],
  [
    ['tree-sitter parse', perLine.parse, '1.00×'],
    ['parseCommandLine (the judge)', perLine.judge, `${(perLine.judge / perLine.parse).toFixed(2)}×`],
  ],
)}

Fuzz oracle at bench size (seed ${seed}): ${count} generated lines, the allowed ones run by \`bash -c\` under \`strace -f -e trace=execve\`, four at a time.

${table(['lines', 'allowed and run', 'runs per second', 'lines that ran what the judge did not list'], [[count, allowed.length, allowed.length / seconds, failures]])}
`)
if (failures) process.exitCode = 1

// Compares the grep engines considered for spill_read on this machine: node bench/regex-engines.mjs
import { Worker } from 'node:worker_threads'
import { RE2JS } from 're2js'

const ms = (start) => (performance.now() - start).toFixed(1)
const lines = (text, test) => {
  let n = 0
  for (const line of text.split('\n')) if (test(line)) n++
  return n
}
const spill = Array.from({ length: 95_000 }, (_, i) => (i % 1000 === 7 ? `ERROR at step ${i}: disk full` : `ok line ${i} ünïcödé 漢字 🎉 nothing to see`)).join(
  '\n',
)
console.log(`5 MB spill: ${(Buffer.byteLength(spill) / 1e6).toFixed(1)} MB, ${spill.split('\n').length} lines`)

// The worker greps with V8's RegExp and is terminated when the budget runs out.
const workerSource = `const { parentPort } = require('node:worker_threads')
parentPort.on('message', ({ pattern, text }) => { const re = new RegExp(pattern); let n = 0; for (const l of text.split('\\n')) if (re.test(l)) n++; parentPort.postMessage(n) })`
function inWorker(pattern, text, budgetMs) {
  const worker = new Worker(workerSource, { eval: true })
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      worker.terminate()
      resolve('killed at budget')
    }, budgetMs)
    worker.once('message', (n) => {
      clearTimeout(timer)
      worker.terminate()
      resolve(n)
    })
    worker.postMessage({ pattern, text })
  })
}

for (const [label, pattern] of [
  ['normal', 'ERROR at step \\d+'],
  ['class', '[Ee]rror|FATAL'],
]) {
  let start = performance.now()
  const js = new RegExp(pattern)
  const v8 = lines(spill, (l) => js.test(l))
  console.log(`${label} V8 RegExp: ${ms(start)} ms (${v8} lines)`)
  const re = RE2JS.compile(pattern)
  start = performance.now()
  const r2 = lines(spill, (l) => re.test(l))
  console.log(`${label} re2js test: ${ms(start)} ms (${r2} lines)`)
  start = performance.now()
  const w = await inWorker(pattern, spill, 10_000)
  console.log(`${label} worker (V8, incl. start + copy): ${ms(start)} ms (${w} lines)`)
}

const evil = 'a'.repeat(41) + '!'
for (const n of [20, 22, 24]) {
  const start = performance.now()
  ;/(a+)+$/.test('a'.repeat(n) + '!')
  console.log(
    `catastrophic V8, ${n} a's: ${ms(start)} ms (doubles per extra a; 41 a's ≈ ${((2 ** (41 - n) * (performance.now() - start)) / 3.6e6).toFixed(0)} hours)`,
  )
}
let start = performance.now()
console.log(`catastrophic re2js, 41 a's: ${RE2JS.compile('(a+)+$').test(evil)} in ${ms(start)} ms`)
start = performance.now()
RE2JS.compile('(a+)+$').test('a'.repeat(1_000_000) + '!')
console.log(`catastrophic re2js, 1,000,000 a's: ${ms(start)} ms`)
start = performance.now()
console.log(`catastrophic worker, 41 a's, 1 s budget: ${await inWorker('(a+)+$', evil, 1000)} after ${ms(start)} ms`)
for (const pattern of ['x'.repeat(1000), 'a{1000}'.repeat(2), 'a{1000}'.repeat(10)]) {
  start = performance.now()
  const size = RE2JS.compile(pattern).programSize()
  console.log(`re2js compile of a ${pattern.length}-char pattern (${size} instructions): ${ms(start)} ms`)
}

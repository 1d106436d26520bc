import fc from 'fast-check'
import { expect, test } from 'vitest'
import { compilePattern, LineGrep, surrogateSafeChunks, utf8Head, utf8Tail } from '../src/index.js'

const seed = Number(process.env.FC_SEED ?? Date.now() % 1e9)
const params = { seed, numRuns: 300 }
console.log(`fast-check seed ${seed} (set FC_SEED to replay)`)

// Whole characters of every UTF-8 length, so cuts land everywhere.
const text = fc.array(fc.constantFrom('a', 'z', '\n', 'é', 'ß', '漢', 'か', '🎉', '𝄞', ' '), { maxLength: 200, size: 'max' }).map((cs) => cs.join(''))
const bytesOf = (s: string) => Buffer.byteLength(s)
const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

test('utf8Head is the longest prefix within the byte budget and never breaks a character', () => {
  fc.assert(
    fc.property(text, fc.nat(900), (s, max) => {
      const head = utf8Head(s, max)
      expect(s.startsWith(head.text)).toBe(true)
      expect(head.bytes).toBe(bytesOf(head.text))
      expect(head.bytes).toBeLessThanOrEqual(max)
      expect(hasLoneSurrogate(head.text)).toBe(false)
      const next = s.slice(head.text.length, head.text.length + (s.codePointAt(head.text.length)! > 0xffff ? 2 : 1))
      if (next) expect(head.bytes + bytesOf(next)).toBeGreaterThan(max)
    }),
    params,
  )
})

test('utf8Tail is the longest suffix within the byte budget and never breaks a character', () => {
  fc.assert(
    fc.property(text, fc.nat(900), (s, max) => {
      const tail = utf8Tail(s, max)
      expect(s.endsWith(tail.text)).toBe(true)
      expect(tail.bytes).toBe(bytesOf(tail.text))
      expect(tail.bytes).toBeLessThanOrEqual(max)
      expect(hasLoneSurrogate(tail.text)).toBe(false)
      const rest = s.slice(0, s.length - tail.text.length)
      const prev = [...rest].pop()
      if (prev) expect(tail.bytes + bytesOf(prev)).toBeGreaterThan(max)
    }),
    params,
  )
})

test('surrogateSafeChunks joins back to the input and never splits a pair', () => {
  fc.assert(
    fc.property(text, fc.integer({ min: 1, max: 9 }), (s, size) => {
      const chunks = [...surrogateSafeChunks(s, size)]
      expect(chunks.join('')).toBe(s)
      for (const chunk of chunks) expect(hasLoneSurrogate(chunk)).toBe(false)
    }),
    params,
  )
})

test('LineGrep gives the same matches however the text is split into chunks', () => {
  fc.assert(
    fc.property(text, fc.array(fc.nat(200), { maxLength: 6 }), (s, cuts) => {
      const whole = new LineGrep(compilePattern('[é🎉]'))
      whole.push(s)
      const expected = whole.end()
      const split = new LineGrep(compilePattern('[é🎉]'))
      let last = 0
      for (const cut of [...cuts].sort((a, b) => a - b).map((c) => Math.min(c, s.length))) {
        split.push(s.slice(last, cut))
        last = cut
      }
      split.push(s.slice(last))
      expect(split.end()).toEqual(expected)
      const lines = s.split('\n')
      expect(expected.matches.map((m) => m.line)).toEqual(lines.flatMap((l, i) => (/[é🎉]/u.test(l) ? [i + 1] : [])))
    }),
    params,
  )
})

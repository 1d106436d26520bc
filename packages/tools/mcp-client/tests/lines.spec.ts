import { describe, expect, it } from 'vitest'
import { LineSplitter } from '../src/lines.js'

function split(chunks: Buffer[], max = 1024) {
  const lines: string[] = []
  const oversize: number[] = []
  const splitter = new LineSplitter(
    (line) => lines.push(line),
    (bytes) => oversize.push(bytes),
    max,
  )
  for (const chunk of chunks) splitter.push(chunk)
  return { lines, oversize }
}

describe('LineSplitter', () => {
  it('gives the same lines however the stream is cut, multi-byte characters and CRLF included', () => {
    const text = 'first\r\nsecond ✓ ünïcödé\n\nthird 🚀\n'
    const bytes = Buffer.from(text)
    const whole = split([bytes]).lines
    expect(whole).toEqual(['first', 'second ✓ ünïcödé', '', 'third 🚀'])
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) {
        expect(split([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]).lines).toEqual(whole)
      }
    }
  })

  it('drops a line over the limit whole, in one chunk or many, and reads on', () => {
    const long = 'x'.repeat(3000)
    expect(split([Buffer.from(`${long}\nafter\n`)])).toEqual({ lines: ['after'], oversize: [3000] })
    const pieces = Array.from({ length: 30 }, () => Buffer.from('y'.repeat(100)))
    expect(split([Buffer.from('before\n'), ...pieces, Buffer.from('\nafter\n')])).toEqual({ lines: ['before', 'after'], oversize: [3000] })
  })

  it('keeps an unfinished last line until its newline comes', () => {
    const lines: string[] = []
    const splitter = new LineSplitter(
      (line) => lines.push(line),
      () => {},
    )
    splitter.push(Buffer.from('{"jsonrpc":'))
    expect(lines).toEqual([])
    splitter.push(Buffer.from('"2.0"}\n'))
    expect(lines).toEqual(['{"jsonrpc":"2.0"}'])
  })
})

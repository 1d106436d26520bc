import { describe, expect, it } from 'vitest'
import { LineSplitter, responseIdOf } from '../src/lines.js'

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

describe('responseIdOf', () => {
  const ends = (line: string) => ({ head: line.slice(0, 256), tail: line.slice(-256) })
  const big = 'z'.repeat(5000)
  it('finds the id of a response at either end, and nothing for requests, notifications or nested ids', () => {
    expect(responseIdOf(ends(`{"jsonrpc":"2.0","id":7,"result":{"text":"${big}"}}`))).toBe(7)
    expect(responseIdOf(ends(`{"result":{"text":"${big}"},"jsonrpc":"2.0","id":"a\\"b"}`))).toBe('a"b')
    expect(responseIdOf(ends(`{"error":{"message":"${big}"},"id":3,"jsonrpc":"2.0"}`))).toBe(3)
    expect(responseIdOf(ends(`{"method":"x","params":{"t":"${big}"},"jsonrpc":"2.0","id":4}`))).toBeUndefined()
    expect(responseIdOf(ends(`{"jsonrpc":"2.0","method":"x","params":{"t":"${big}","id":5}}`))).toBeUndefined()
    expect(responseIdOf(ends(`{"result":{"t":"${big}","inner":{"id":6}}}`))).toBeUndefined()
  })

  it('the splitter hands over both ends of a dropped line, in one chunk or many', () => {
    const line = `{"result":{"t":"${'y'.repeat(3000)}"},"jsonrpc":"2.0","id":9}`
    for (const pieces of [[line], line.match(/.{1,100}/gs)!]) {
      const seen: number[] = []
      const splitter = new LineSplitter(
        () => {},
        (_bytes, lineEnds) => seen.push(responseIdOf(lineEnds) as number),
        1024,
      )
      for (const piece of pieces) splitter.push(Buffer.from(piece))
      splitter.push(Buffer.from('\n'))
      expect(seen).toEqual([9])
    }
  })
})

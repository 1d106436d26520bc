import { describe, expect, test } from 'vitest'
import { compilePattern, LineGrep, MAX_PATTERN_CHARS, SpillError, type SpillPattern } from '../src/index.js'
import { fileURLToPath } from 'node:url'
import { runIsolated } from '@dshkit/testing'

// The child runs in this package's directory, so it imports the built lib by package name.
const packageDir = fileURLToPath(new URL('..', import.meta.url))

function refusal(run: () => unknown): SpillError {
  try {
    run()
  } catch (error) {
    return error as SpillError
  }
  throw new Error('expected INVALID_PATTERN, the pattern was accepted')
}

const grep = (pattern: string | RegExp, text: string) => {
  const lines = new LineGrep(pattern)
  lines.push(text)
  return lines.end().matches
}

describe('a model-supplied pattern cannot stall the process', () => {
  test('(a+)+$ on 41 a\'s and a "!" finishes at once, given as a string or as a RegExp', async () => {
    const out = await runIsolated(
      `
      import { compilePattern, LineGrep } from '@dshkit/spill'
      const line = 'a'.repeat(41) + '!\\n'
      const counts = []
      for (const pattern of [compilePattern('(a+)+$'), /(a+)+$/, '(a|aa)+$']) {
        const grep = new LineGrep(pattern)
        grep.push(line.repeat(1000))
        counts.push(grep.end().matches.length)
      }
      console.log(JSON.stringify(counts))`,
      { cwd: packageDir },
    )
    expect(JSON.parse(out)).toEqual([0, 0, 0])
  })

  test('a 5 MB pattern is INVALID_PATTERN with a message of a few hundred characters', () => {
    const error = refusal(() => compilePattern('x'.repeat(5_000_000)))
    expect(error).toMatchObject({ code: 'INVALID_PATTERN', retryable: false, message: expect.stringContaining(`at most ${MAX_PATTERN_CHARS} characters`) })
    expect(error.message.length).toBeLessThan(400)
    const unclosed = refusal(() => compilePattern('('.repeat(MAX_PATTERN_CHARS)))
    expect(unclosed.code).toBe('INVALID_PATTERN')
    expect(unclosed.message.length).toBeLessThan(400)
  })

  test('a short pattern that would compile to a huge program is refused before compiling', () => {
    for (const pattern of ['(?:a{1000}){1000}', 'a{1000}'.repeat(10), '((x{100}){100})']) {
      expect(refusal(() => compilePattern(pattern))).toMatchObject({ code: 'INVALID_PATTERN', message: expect.stringContaining('too complex') })
    }
    expect(grep('x{1,100}y', 'xxy\nz')).toEqual([{ line: 1, text: 'xxy' }])
  })

  test.each([
    ['(?<=a)b', 'lookbehind'],
    ['(?<!a)b', 'lookbehind'],
    ['foo(?=bar)', 'lookahead'],
    ['(a)\\1', 'backreferences'],
    ['(?<q>a)\\k<q>', 'backreferences'],
  ])('%s is INVALID_PATTERN saying %s is not supported', (pattern, what) => {
    const error = refusal(() => compilePattern(pattern))
    expect(error.code).toBe('INVALID_PATTERN')
    expect(error.message).toContain(`${what}`)
    expect(error.message).toContain('not supported')
  })

  test('control characters are matched as text and never echoed raw in an error', () => {
    expect(grep('a\u0000b', 'x\na\u0000b\n')).toEqual([{ line: 2, text: 'a\u0000b' }])
    const error = refusal(() => compilePattern('\u001b[31m\u0007(' + 'y'.repeat(300)))
    expect(error.code).toBe('INVALID_PATTERN')
    expect(error.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/)
    expect(error.message.length).toBeLessThan(400)
  })

  test('an engine failure while matching is INVALID_PATTERN with a bounded message, not a store failure', () => {
    const broken: SpillPattern = {
      source: 'x',
      search() {
        throw new RangeError('internal limit: ' + 'z'.repeat(5_000_000))
      },
    }
    const error = refusal(() => grep(broken as any, 'one\ntwo'))
    expect(error).toMatchObject({ code: 'INVALID_PATTERN', retryable: false, message: expect.stringContaining('failed on line 1') })
    expect(error.message.length).toBeLessThan(400)
  })
})

describe('RE2 syntax', () => {
  test('everyday JavaScript spellings work: classes, \\d \\w \\b, named groups, \\u escapes, the i flag', () => {
    const text = 'ERROR 42 at step\nwarn: é\nok\nError: 7'
    expect(grep('^[A-Z]+ \\d+\\b', text).map((m) => m.line)).toEqual([1])
    expect(grep('(?<level>warn):\\s\\u00e9', text).map((m) => m.line)).toEqual([2])
    expect(grep(/^error/i, text).map((m) => m.line)).toEqual([1, 4])
    expect(grep('(?i)^error', text).map((m) => m.line)).toEqual([1, 4])
  })

  test('an excerpt of a long line is still centred on the match (UTF-16 index, astral characters included)', () => {
    const line = '🎉'.repeat(500) + 'NEEDLE' + 'x'.repeat(1000)
    const [match] = grep('NEEDLE', line)
    expect(match.text).toContain('NEEDLE')
    expect(match.text.length).toBeLessThanOrEqual(402)
  })
})

test('SpillError says whether retrying can help: only a store failure may', () => {
  expect(new SpillError('STORE_FAILED', 'disk full').retryable).toBe(true)
  for (const code of ['INVALID_ID', 'NOT_FOUND', 'INVALID_RANGE', 'INVALID_PATTERN', 'TOO_LARGE'] as const) {
    expect(new SpillError(code, 'x').retryable).toBe(false)
  }
})

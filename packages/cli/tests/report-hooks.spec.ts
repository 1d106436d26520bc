import { describe, expect, test } from 'vitest'
import { outcomeLines } from '../src/report.js'

const outcome = (meta: Record<string, any>) => ({
  line: 3,
  callId: 'c1',
  name: 'shell',
  durationMs: 5,
  result: { isError: false as const, value: null, content: [{ type: 'text' as const, text: 'done' }], meta },
})

describe('dshkit run human output: what hooks said', () => {
  test('a hook systemMessage is shown under the call, with the hook and its event', () => {
    const text = outcomeLines(outcome({ hooks: { systemMessages: [{ hook: './fmt.sh', event: 'PostToolUse', message: 'formatted 3 files' }] } }), 'calls.jsonl')
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/^✓ calls\.jsonl:3 shell \[c1\] ok · 5 ms$/),
      '    done',
      '  ⚑ PostToolUse hook `./fmt.sh`: formatted 3 files',
    ])
  })

  test('rewritten arguments are named; control characters in a message are made visible', () => {
    const text = outcomeLines(
      outcome({
        argumentsRewrittenBy: ['hooks-claude-code: ./rewrite.sh'],
        hooks: { systemMessages: [{ hook: 'x', event: 'PreToolUse', message: 'bad\u001b[2Jnews' }, 'not an entry'] },
      }),
      'calls.jsonl',
    )
    const lines = text.split('\n')
    expect(lines[2]).toBe('  ↻ arguments rewritten by hooks-claude-code: ./rewrite.sh')
    expect(lines[3]).toMatch(/^ {2}⚑ PreToolUse hook `x`: bad.*news$/)
    expect(lines[3]).not.toContain('\u001b')
    expect(lines).toHaveLength(4)
  })
})

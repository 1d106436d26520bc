import { describe, expect, it } from 'vitest'
import type { Judgement } from '../src/judgement.js'
import { compare, recordedCalls, recordedVerdict } from '../src/replay-diff.js'

const t = '2026-12-01T09:00:00.000Z'
const call = (callId: string, name = 'fs_read') => ({ type: 'tool/call', callId, name, arguments: { path: 'a' }, time: t })
const result = (callId: string, error?: { code: string; source?: string; message?: string }, meta?: object) => ({
  type: 'tool/result',
  callId,
  isError: !!error,
  content: [],
  ...(error ? { error: { message: 'x', ...error } } : {}),
  ...(meta ? { meta } : {}),
  time: t,
})
const verdicts = (events: object[]) => recordedCalls(events as any).map((r) => recordedVerdict(r))
const judged = (decision: Judgement['decision']): Judgement => ({ callId: 'c', name: 'fs_read', arguments: { path: 'a' }, decision, trace: [] })

describe('what the log shows was decided', () => {
  it('each outcome in one vocabulary, and whether the body had started', () => {
    expect(
      verdicts([
        call('ok'),
        result('ok'),
        call('tool-failed'),
        result('tool-failed', { code: 'TOOL_ERROR', source: 'tool-fs' }),
        call('denied'),
        result('denied', { code: 'DENIED', source: 'fs-sandbox' }, { decidedBy: 'listener' }),
        call('unknown', 'gone'),
        result('unknown', { code: 'UNKNOWN_TOOL', source: 'tools' }),
        call('crashed'), // no result: it had started
        call('listener-threw'),
        result('listener-threw', { code: 'PIPELINE_ERROR', source: 'my-policy', message: 'my-policy failed in tools/pre-execute: boom' }),
        call('post-threw'),
        result('post-threw', { code: 'PIPELINE_ERROR', source: 'my-post', message: 'my-post failed in tools/post-execute: boom' }),
      ]).map((v) => [v.kind, v.ran]),
    ).toEqual([
      ['allow', true],
      ['allow', true],
      ['deny', false],
      ['refused', false],
      ['allow', true],
      ['deny', false],
      ['allow', true],
    ])
  })

  it('asks: approved ran, not approved did not, still waiting at a crash did not', () => {
    const asked = (callId: string) => ({
      type: 'approval/requested',
      requestId: `q-${callId}`,
      callId,
      tool: 'fs_write',
      argumentsHash: 'h',
      summary: 's',
      source: 'permission-policy',
      time: t,
    })
    const answered = (callId: string, decision: string) => ({ type: 'approval/answered', requestId: `q-${callId}`, callId, decision, by: 'responder', time: t })
    expect(
      verdicts([
        call('yes'),
        asked('yes'),
        answered('yes', 'allow'),
        result('yes'),
        call('no'),
        asked('no'),
        answered('no', 'deny'),
        result('no', { code: 'DENIED', source: 'approval' }, { decidedBy: 'approval' }),
        call('waiting'),
        asked('waiting'),
      ]).map((v) => [v.kind, v.ran]),
    ).toEqual([
      ['ask', true],
      ['ask', false],
      ['ask', false],
    ])
  })
})

describe('what changes', () => {
  const recorded = (events: object[]) => recordedCalls(events as any)[0]
  it('ran → denied is breaking; ran → asked is a change, not breaking; denied → denied by another plugin is a change', () => {
    const ran = recorded([call('c'), result('c')])
    expect(compare(ran, judged({ kind: 'deny', code: 'DENIED', by: 'guard', source: 'permission-policy', reason: 'no' }))).toMatchObject({
      changed: true,
      breaking: true,
    })
    expect(compare(ran, judged({ kind: 'deny', code: 'UNKNOWN_TOOL', by: 'registry', source: 'tools', reason: 'gone' }))).toMatchObject({
      changed: true,
      breaking: true,
      after: { kind: 'refused' },
    })
    expect(compare(ran, judged({ kind: 'ask', source: 'permission-policy' }))).toMatchObject({ changed: true, breaking: false })
    expect(compare(ran, judged({ kind: 'allow' }))).toMatchObject({ changed: false, breaking: false })
    const denied = recorded([call('c'), result('c', { code: 'DENIED', source: 'fs-sandbox' })])
    expect(compare(denied, judged({ kind: 'deny', code: 'DENIED', by: 'listener', source: 'fs-sandbox', reason: 'x' }))).toMatchObject({ changed: false })
    expect(compare(denied, judged({ kind: 'deny', code: 'DENIED', by: 'guard', source: 'permission-policy', reason: 'x' }))).toMatchObject({
      changed: true,
      breaking: false,
    })
    expect(compare(denied, judged({ kind: 'allow' }))).toMatchObject({ changed: true, breaking: false })
  })

  it('a callId reused every turn: an ask on one call is not lent to another (attack)', () => {
    const asked = {
      type: 'approval/requested',
      requestId: 'q',
      callId: 'call_0',
      tool: 'fs_write',
      argumentsHash: 'h',
      summary: 's',
      source: 'permission-policy',
      time: t,
    }
    const answered = { type: 'approval/answered', requestId: 'q', callId: 'call_0', decision: 'allow', by: 'responder', time: t }
    const calls = recordedCalls([call('call_0'), result('call_0'), call('call_0', 'fs_write'), asked, answered, result('call_0')] as any)
    expect(calls.map((c) => [c.call.name, c.asked, c.answered])).toEqual([
      ['fs_read', false, undefined],
      ['fs_write', true, 'allow'],
    ])
    expect(compare(calls[0], judged({ kind: 'allow' }))).toMatchObject({ changed: false, before: { kind: 'allow' } })
  })

  it('an ask a stored grant would answer is the approved ask the log shows, not a change (attack)', () => {
    const ask = [
      { phase: 'guard', plugin: 'permission-policy', decision: 'ask' },
      { phase: 'approval', plugin: 'approval', decision: 'allow' },
    ]
    const approved = recorded([call('c'), result('c', undefined, { trace: ask })])
    const granted: Judgement = { ...judged({ kind: 'allow' }), trace: ask }
    expect(compare(approved, granted)).toMatchObject({
      changed: false,
      before: { kind: 'ask', ran: true },
      after: { kind: 'ask', source: 'permission-policy' },
    })
  })

  it('a callId used twice: each result goes with the call recorded before it', () => {
    const calls = recordedCalls([call('c'), result('c'), call('c'), result('c', { code: 'DENIED', source: 'x' })] as any)
    expect(calls.map((c) => c.result?.isError)).toEqual([false, true])
  })
})

import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { computeStats } from '../src/commands/stats.js'
import { percentile } from '../src/percentiles.js'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, 0) + ms).toISOString()
const call = (callId: string, name: string, ms: number) => ({ type: 'tool/call', callId, name, arguments: {}, time: at(ms) })
const ok = (callId: string, ms: number, meta?: object) => ({
  type: 'tool/result',
  callId,
  isError: false,
  content: [],
  ...(meta ? { meta } : {}),
  time: at(ms),
})
const fail = (callId: string, ms: number, code: string, source?: string, meta?: object) => ({
  type: 'tool/result',
  callId,
  isError: true,
  content: [],
  error: { code, message: 'x', ...(source ? { source } : {}) },
  ...(meta ? { meta } : {}),
  time: at(ms),
})

async function logFile(events: object[], extra = '') {
  const dir = await tempDir('dshkit-stats-')
  const file = join(dir, 'session.jsonl')
  await writeFile(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n' + extra)
  return file
}

describe('computeStats', () => {
  it('counts each outcome per tool, and latency percentiles from call to result', () => {
    const events: any[] = []
    // 10 fs_read calls taking 10, 20, …, 100 ms
    for (let i = 1; i <= 10; i++) events.push(call(`r${i}`, 'fs_read', i * 1000), ok(`r${i}`, i * 1000 + i * 10, i === 3 ? { spill: { id: 's1' } } : undefined))
    events.push(call('d1', 'fs_write', 0), fail('d1', 5, 'DENIED', 'fs-sandbox', { decidedBy: 'listener' }))
    events.push(call('t1', 'shell', 0), fail('t1', 300, 'TOOL_TIMEOUT', 'timeout-policy'))
    events.push(call('e1', 'shell', 0), fail('e1', 40, 'TOOL_ERROR', 'shell'))
    events.push(call('u1', 'nope', 0), fail('u1', 1, 'UNKNOWN_TOOL', 'registry'))
    events.push(call('p1', 'shell', 0)) // interrupted: no result
    const { tools, deciders } = computeStats(events as any[])
    expect(tools.find((t) => t.tool === 'fs_read')).toEqual({
      tool: 'fs_read',
      calls: 10,
      allowed: 10,
      denied: 0,
      asked: 0,
      errors: 0,
      timeouts: 0,
      spilled: 1,
      interrupted: 0,
      p50Ms: 50,
      p90Ms: 90,
      p99Ms: 100,
    })
    expect(tools.find((t) => t.tool === 'shell')).toMatchObject({ calls: 3, allowed: 2, errors: 2, timeouts: 1, interrupted: 1, p50Ms: 40, p99Ms: 300 })
    expect(tools.find((t) => t.tool === 'fs_write')).toMatchObject({ calls: 1, allowed: 0, denied: 1, errors: 0 })
    expect(tools.find((t) => t.tool === 'nope')).toMatchObject({ calls: 1, allowed: 0, denied: 0, errors: 1 })
    // A tool's own error is not a plugin's decision.
    expect(deciders.map((d) => [d.plugin, d.deny, d.other])).toEqual([
      ['fs-sandbox', 1, 0],
      ['registry', 0, 1],
      ['timeout-policy', 0, 1],
    ])
  })

  it('with meta.trace, every deciding plugin and its rule is counted; passes are not decisions', () => {
    const trace = (decision: string, rule: number) => [
      { phase: 'pre-execute', plugin: 'fs-sandbox', decision: 'pass', ms: 0.01 },
      { phase: 'pre-execute', plugin: 'permission-policy', decision, ms: 0.02, detail: { rule, file: 'cordis.yml' } },
      { phase: 'body', plugin: 'tool-fs', decision: 'ok', ms: 1 },
    ]
    const events = [
      call('a', 'fs_read', 0),
      ok('a', 1, { trace: trace('allow', 1) }),
      call('b', 'fs_read', 0),
      ok('b', 1, { trace: trace('allow', 1) }),
      call('c', 'fs_write', 0),
      fail('c', 1, 'DENIED', 'permission-policy', { decidedBy: 'guard', trace: trace('deny', 2) }),
      call('d', 'fs_write', 0),
      ok('d', 1, { trace: [...trace('ask', 3), { phase: 'approval', plugin: 'approval', decision: 'allow', ms: 3 }] }),
    ]
    const { tools, deciders, traced } = computeStats(events as any[])
    expect(traced).toBe(true)
    expect(deciders).toEqual([
      { plugin: 'permission-policy', rule: 'rule #1 in cordis.yml', allow: 2, deny: 0, ask: 0, other: 0 },
      { plugin: 'approval', allow: 1, deny: 0, ask: 0, other: 0 },
      { plugin: 'permission-policy', rule: 'rule #2 in cordis.yml', allow: 0, deny: 1, ask: 0, other: 0 },
      { plugin: 'permission-policy', rule: 'rule #3 in cordis.yml', allow: 0, deny: 0, ask: 1, other: 0 },
    ])
    expect(tools.find((t) => t.tool === 'fs_write')).toMatchObject({ asked: 1, allowed: 1, denied: 1 })
  })

  it('malformed trace entries and results without a call are skipped, not fatal', () => {
    const events = [
      call('a', 'fs_read', 0),
      ok('a', 1, { trace: ['junk', null, { plugin: 5 }, { phase: 'pre-execute', plugin: 'x', decision: 'deny', detail: [1] }] }),
      ok('orphan', 1),
    ]
    const { tools, deciders } = computeStats(events as any[])
    expect(tools).toHaveLength(1)
    expect(deciders).toEqual([{ plugin: 'x', allow: 0, deny: 1, ask: 0, other: 0 }])
  })

  it('a reused callId is a new call: each result goes with the call before it, and one left open was cut off (attack)', () => {
    // Some models send `call_0` every turn.
    const events = [
      call('call_0', 'fs_read', 0),
      ok('call_0', 10),
      call('call_0', 'shell', 1000),
      call('call_0', 'fs_write', 2000),
      fail('call_0', 2005, 'DENIED', 'fs-sandbox'),
    ]
    const { tools } = computeStats(events as any[])
    expect(tools.map((t) => [t.tool, t.calls, t.allowed, t.denied, t.interrupted, t.p50Ms])).toEqual([
      ['fs_read', 1, 1, 0, 0, 10],
      ['fs_write', 1, 0, 1, 0, 5],
      ['shell', 1, 0, 0, 1, undefined],
    ])
  })

  it('percentile is nearest-rank', () => {
    expect(percentile([], 50)).toBeUndefined()
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([1, 2, 3, 4], 50)).toBe(2)
    expect(percentile([1, 2, 3, 4], 90)).toBe(4)
  })
})

describe('dshkit stats', () => {
  it('prints the per-tool table and who decided; --json is one object', async () => {
    const file = await logFile([
      call('a', 'fs_read', 0),
      ok('a', 12),
      call('b', 'fs_read', 0),
      fail('b', 3, 'DENIED', 'fs-sandbox', { decidedBy: 'listener' }),
      { type: 'approval/requested', requestId: 'q', callId: 'c', tool: 'fs_write', argumentsHash: 'h', summary: 's', source: 'permission-policy', time: at(0) },
      call('c', 'fs_write', 0),
      { type: 'approval/answered', requestId: 'q', callId: 'c', decision: 'deny', by: 'responder', time: at(5) },
      fail('c', 6, 'DENIED', 'approval', { decidedBy: 'approval' }),
    ])
    const human = await dshkit(['stats', file])
    expect(human.code).toBe(0)
    expect(human.stdout.split('\n').slice(0, 3)).toEqual([
      'tool      calls  allowed  denied  asked  errors  timeouts  spilled  interrupted  p50 ms  p90 ms  p99 ms',
      'fs_read       2        1       1      0       0         0        0            0       3      12      12',
      'fs_write      1        0       1      1       0         0        0            0       6       6       6',
    ])
    expect(human.stdout).toMatch(/fs-sandbox\s+-\s+0\s+1\s+0\s+0/)
    expect(human.stdout).toMatch(/permission-policy\s+-\s+0\s+0\s+1\s+0/)
    expect(human.stdout).toMatch(/approval\s+-\s+0\s+1\s+0\s+0/)
    const json = await dshkit(['stats', file, '--json'])
    const parsed = JSON.parse(json.stdout)
    expect(parsed.type).toBe('stats')
    expect(parsed.tools[0]).toMatchObject({ tool: 'fs_read', calls: 2, p50Ms: 3 })
  })

  it('control characters in a tool name cannot repaint the table', async () => {
    const file = await logFile([call('a', 'evil\x1b[2J\nname', 0), ok('a', 1)])
    const { stdout } = await dshkit(['stats', file])
    expect(stdout).toContain('evil\\x1b[2J\\x0aname')
    expect(stdout).not.toContain('\x1b')
  })

  it('bad input: a missing file, a directory, a corrupt line are one line each, exit 1, no stack', { timeout: 60_000 }, async () => {
    const dir = await tempDir('dshkit-stats-bad-')
    const missing = await dshkit(['stats', join(dir, 'nope.jsonl')])
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `dshkit: ${join(dir, 'nope.jsonl')}: cannot read session log: no such file`])
    const directory = await dshkit(['stats', dir])
    expect(directory.code).toBe(1)
    expect(directory.stderr.trim().split('\n')).toHaveLength(1)
    const corrupt = await logFile([call('a', 'x', 0)], 'not json\n' + JSON.stringify(ok('a', 1)) + '\n')
    const bad = await dshkit(['stats', corrupt])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/line 2/)
    expect(bad.stderr).not.toMatch(/\n\s+at /)
    const usage = await dshkit(['stats'])
    expect(usage.code).toBe(2)
  })

  it('--json names a torn last line instead of dropping it silently (attack)', async () => {
    const file = await logFile([call('a', 'fs_read', 0), ok('a', 12)], '{"type":"tool/call","callId":"b","na')
    const { code, stdout } = await dshkit(['stats', file, '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ type: 'stats', tornLine: 3, tools: [{ tool: 'fs_read', calls: 1 }] })
  })

  it('an empty log says so', async () => {
    const file = await logFile([])
    const { code, stdout } = await dshkit(['stats', file])
    expect([code, stdout.trim()]).toEqual([0, 'no tool calls in this log'])
  })
})

import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Session from '@dshkit/session'
import SessionStoreJsonl, { readSessionLog } from '@dshkit/session-store-jsonl'
import { cleanup, deferred, eventually, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { argumentsHash, type PendingAsk } from '../src/index.js'
import { pipeline } from './pipeline.js'
import { waitFor } from './helpers.js'

afterEach(cleanup)

const fixture = fileURLToPath(new URL('./fixtures/pending-child.ts', import.meta.url))
const repo = fileURLToPath(new URL('../../../..', import.meta.url))

const approvalEvents = (events: readonly { type: string }[]) => events.filter((event) => event.type.startsWith('approval/'))

describe('approval/requested and approval/answered', () => {
  test('an ask and its answer are session events; a grant that answers at once records only the answer, with the grant', async () => {
    const p = await pipeline({ extra: [Session] })
    p.answer(() => ({ kind: 'allow', grant: 'exact' }))
    expect(await p.call('shell', { command: 'echo \x1b[31mred' }, { callId: 'c1' })).toMatchObject({ isError: false })
    expect(await p.call('shell', { command: 'echo \x1b[31mred' }, { callId: 'c2' })).toMatchObject({ isError: false })
    p.answer(() => ({ kind: 'deny', reason: 'no' }))
    expect(await p.call('shell', { command: 'ls' }, { callId: 'c3' })).toMatchObject({ isError: true })
    const [grant] = await p.ctx.approval.grants.list()
    const events = approvalEvents(p.ctx.session.events())
    expect(events).toEqual([
      {
        type: 'approval/requested',
        requestId: expect.stringMatching(/^a_/),
        callId: 'c1',
        tool: 'shell',
        argumentsHash: argumentsHash({ command: 'echo \x1b[31mred' }),
        summary: 'shell {"command":"echo \\u001b[31mred"}',
        source: 'permission-policy',
        reason: expect.stringContaining('commands need a human'),
        time: expect.any(String),
      },
      {
        type: 'approval/answered',
        requestId: (events[0] as { requestId?: string }).requestId,
        callId: 'c1',
        decision: 'allow',
        by: 'responder',
        grantId: grant.id,
        time: expect.any(String),
      },
      {
        type: 'approval/answered',
        requestId: expect.stringMatching(/^a_/),
        callId: 'c2',
        decision: 'allow',
        by: 'grant',
        grantId: grant.id,
        time: expect.any(String),
      },
      expect.objectContaining({ type: 'approval/requested', callId: 'c3' }),
      expect.objectContaining({ type: 'approval/answered', callId: 'c3', decision: 'deny', by: 'responder', reason: 'no' }),
    ])
    expect(p.ctx.approval.stale()).toEqual([])
  })

  test('timeouts and cancellations are recorded as such; live listeners see each ask come and go', async () => {
    const p = await pipeline({ extra: [Session], approval: { timeoutMs: 50 } })
    const seen: string[] = []
    p.ctx.on('approval/requested', (ask: PendingAsk) => seen.push(`requested ${ask.callId}`))
    p.ctx.on('approval/answered', (ask: PendingAsk, outcome) => seen.push(`answered ${ask.callId} ${outcome.decision} ${outcome.by}`))
    p.answer(() => new Promise(() => {}))
    expect(await p.call('shell', { command: 'ls' }, { callId: 't' })).toMatchObject({ error: { message: expect.stringContaining('no answer within 50 ms') } })
    const caller = new AbortController()
    const cancelled = p.call('shell', { command: 'ls' }, { callId: 'x', signal: caller.signal })
    await eventually(() => expect(p.ctx.approval.pending()).toHaveLength(1))
    caller.abort()
    expect(await cancelled).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    await eventually(() => expect(seen).toHaveLength(4))
    expect(seen).toEqual(['requested t', 'answered t deny timeout', 'requested x', 'answered x deny cancelled'])
    expect(approvalEvents(p.ctx.session.events()).map((e: any) => `${e.type} ${e.callId} ${e.by ?? ''}`.trim())).toEqual([
      'approval/requested t',
      'approval/answered t timeout',
      'approval/requested x',
      'approval/answered x cancelled',
    ])
  })
})

describe('after a restart', () => {
  test('an ask left pending by a killed process is stale, says its call never ran, and cannot be answered', async () => {
    const dir = await tempDir('approval-restart-')
    const log = join(dir, 'session.jsonl')
    const grants = join(dir, '.dshkit', 'grants.json')
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, log, grants, dir], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.stderr.on('data', (chunk) => {
      err += chunk
    })
    const exited = deferred<void>()
    child.on('exit', () => exited.resolve())
    await waitFor(() => out + err, 'ASKED ', 1, 20_000)
    const requestId = /ASKED (\S+)/.exec(out)![1]
    child.kill('SIGKILL')
    await exited.promise
    const before = await readSessionLog(log)
    expect(before.events.map((e) => e.type)).toEqual(['tool/call', 'approval/requested'])

    const p = await pipeline({ dir, extra: [[SessionStoreJsonl, { path: log }]] })
    const stale = p.ctx.approval.stale()
    expect(stale).toEqual([
      {
        requestId,
        callId: 'c-stale',
        tool: 'shell',
        argumentsHash: argumentsHash({ command: 'touch ran' }),
        summary: 'shell {"command":"touch ran"}',
        source: 'permission-policy',
        reason: expect.stringContaining('commands need a human'),
        askedAt: expect.any(String),
        call: 'outcome-unknown',
        code: 'TOOL_OUTCOME_UNKNOWN',
        note: 'the process ended before anyone answered, so the call never ran; the session closed it as TOOL_OUTCOME_UNKNOWN',
      },
    ])
    expect(p.ctx.approval.pending()).toEqual([])
    const outcome = p.ctx.approval.answer(requestId, stale[0].argumentsHash, { kind: 'allow', grant: 'exact' })
    expect(outcome).toMatchObject({ ok: false, reason: 'stale', message: expect.stringContaining('earlier process') })
    expect(existsSync(join(dir, 'ran'))).toBe(false)
    expect(await p.ctx.approval.grants.list()).toEqual([])
    // A new ask in this process is live, not stale.
    p.answer(() => new Promise(() => {}))
    void p.call('shell', { command: 'ls' })
    await eventually(() => expect(p.ctx.approval.pending()).toHaveLength(1))
    expect(p.ctx.approval.stale().map((s) => s.requestId)).toEqual([requestId])
  }, 30_000)
})

import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { waitFor } from './helpers.js'

// A real process boots cordis + @dshkit/tools + user-approval and reads answers from its stdin.
const fixture = fileURLToPath(new URL('./fixtures/approval-child.ts', import.meta.url))
const repo = fileURLToPath(new URL('../../../..', import.meta.url))
const hasScript = spawnSync('script', ['--version']).status === 0
const PROMPT = '[y]es / [n]o / [a]lways: '

function child(command: string, args: string[], env: Record<string, string>) {
  const proc = spawn(command, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stdout.on('data', (chunk) => {
    out += chunk.toString()
  })
  proc.stderr.on('data', (chunk) => {
    err += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)))
  return {
    proc,
    get out() {
      return out.replace(/\r\n/g, '\n')
    },
    get err() {
      return err
    },
    exited,
    waitFor: (pattern: string, count = 1) => waitFor(() => out.replace(/\r\n/g, '\n'), pattern, count, 15_000),
    type: (line: string) => void proc.stdin.write(line),
    /** Resolves once the text is in the kernel's pipe toward the child (or its terminal). */
    typed: (line: string) => new Promise<void>((resolve, reject) => proc.stdin.write(line, (error) => (error ? reject(error) : resolve()))),
    results() {
      // A result may land on a prompt's line, so match it anywhere.
      return [...out.matchAll(/RESULT (\{.*\})\r?$/gm)].map((m) => JSON.parse(m[1])).sort((a, b) => a.i - b.i)
    },
  }
}

const node = (calls: unknown[], env: Record<string, string>) => child(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(calls)], env)

// A call that runs without a prompt (`slow`), then one that asks: what was typed meanwhile must not answer it.
const typeAheadCalls = [
  { name: 'slow', arguments: {} },
  { name: 'fs_write', arguments: { path: 'a' } },
]
const goFile = async () => join(await mkdtemp(join(tmpdir(), 'approval-')), 'go')

describe("tty responder on a child process's piped stdin", () => {
  // `always` now covers the exact call only: the queued ask with the same arguments passes unprompted.
  test('y / a / n answer one prompt at a time; always covers queued asks for the same call; the process exits with stdin still open', async () => {
    const c = node(
      [
        { name: 'shell', arguments: { n: 1 } },
        { name: 'fs_write', arguments: { n: 2 } },
        { name: 'fs_write', arguments: { n: 2 } },
        { name: 'shell', arguments: { n: 4 } },
      ],
      { RESPONDER: 'tty', INJECT_STREAMS: '1' },
    )
    await c.waitFor(PROMPT)
    expect(c.out).toContain('READY tty')
    expect(c.out).toContain('approval needed: shell\n  asked by  asker: needs a human\n  arguments {"n":1}\n')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(c.out.split(PROMPT)).toHaveLength(2) // four asks, one prompt
    c.type('y\n')
    await c.waitFor(PROMPT, 2)
    expect(c.out).toContain('arguments {"n":2}')
    c.type('a\n')
    await c.waitFor(PROMPT, 3)
    expect(c.out).toContain('arguments {"n":4}')
    expect(c.out.split('arguments {"n":2}')).toHaveLength(2)
    c.type('n\n')
    await c.waitFor('DONE')
    expect(await c.exited).toBe(0) // stdin was never closed: an idle responder must not hold the process
    expect(c.results()).toEqual([
      { i: 0, isError: false, value: 'shell ran' },
      { i: 1, isError: false, value: 'fs_write ran' },
      { i: 2, isError: false, value: 'fs_write ran' },
      {
        i: 3,
        isError: true,
        error: { code: 'DENIED', source: 'approval', message: 'asker asked for approval (needs a human): the user answered no at the terminal' },
      },
    ])
    expect(c.err).toBe('')
  })

  test('y typed while an earlier call ran, before any prompt, does not answer the next prompt', async () => {
    const go = await goFile()
    const c = node(typeAheadCalls, { RESPONDER: 'tty', INJECT_STREAMS: '1', SEQUENTIAL: '1', GO_FILE: go })
    await c.waitFor('SLOW started')
    await c.typed('y\n')
    await writeFile(go, '')
    await c.waitFor(PROMPT)
    c.type('n\n')
    await c.waitFor('DONE')
    expect(await c.exited).toBe(0)
    expect(c.results()[1]).toMatchObject({ isError: true, error: { code: 'DENIED', message: expect.stringContaining('answered no') } })
  })

  test("'auto' with piped stdin is headless: it denies at once and says why", async () => {
    const c = node([{ name: 'shell', arguments: {} }], { RESPONDER: 'auto' })
    await c.waitFor('DONE')
    expect(await c.exited).toBe(0)
    expect(c.out).toContain('READY headless')
    expect(c.out).not.toContain(PROMPT)
    expect(c.results()[0].error.message).toBe(
      'asker asked for approval (needs a human): no one can approve here (headless: stdin is not a terminal); run in a terminal, or add an allow rule',
    )
  })
})

describe.skipIf(!hasScript)('tty responder in a real pseudo-terminal (util-linux script)', () => {
  test("'auto' picks the terminal, prompts, and reads the answer typed into it", async () => {
    const calls = JSON.stringify([
      { name: 'shell', arguments: { cmd: 'make' } },
      { name: 'fs_write', arguments: { path: 'a' } },
    ])
    const command = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(fixture)} '${calls}'`
    const c = child('script', ['-qfec', command, '/dev/null'], { RESPONDER: 'auto' })
    await c.waitFor(PROMPT)
    expect(c.out).toContain('READY tty')
    expect(c.out).toContain('arguments {"cmd":"make"}')
    c.type('y\n')
    await c.waitFor(PROMPT, 2)
    c.type('n\n')
    await c.waitFor('DONE')
    expect(await c.exited).toBe(0)
    expect(c.results().map((r) => r.isError)).toEqual([false, true])
  })

  test('y typed at the terminal while an earlier call ran does not answer the next prompt', async () => {
    const go = await goFile()
    const command = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(fixture)} '${JSON.stringify(typeAheadCalls)}'`
    const c = child('script', ['-qfec', command, '/dev/null'], { RESPONDER: 'auto', SEQUENTIAL: '1', GO_FILE: go })
    await c.waitFor('SLOW started')
    c.type('y\n')
    // The terminal echoes the line once it sits in its input queue, unread by anyone.
    await c.waitFor('SLOW started\ny\n')
    await writeFile(go, '')
    await c.waitFor(PROMPT)
    c.type('n\n')
    await c.waitFor('DONE')
    expect(await c.exited).toBe(0)
    expect(c.results()[1]).toMatchObject({ isError: true, error: { code: 'DENIED', message: expect.stringContaining('answered no') } })
  })
})

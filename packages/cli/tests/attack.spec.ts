import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { bin, dshkit } from './run-cli.js'

const ESC = '\x1b'
const hostileText = `${ESC}]0;pwned\x07${ESC}[2J${ESC}[H\rfake ✓ all good\x08\x9b31m`

let dir: string
beforeAll(async () => {
  dir = await tempDir('dshkit-hostile-')
  await writeFile(join(dir, 'hello.txt'), 'hello\n')
  await writeFile(join(dir, 'repaint.txt'), `${hostileText}\n`)
  execFileSync('mkfifo', [join(dir, 'calls.fifo'), join(dir, 'log.fifo')])
  await mkdir(join(dir, 'a-directory'))
})
afterAll(cleanup)

const oneCall = async () => {
  const calls = join(dir, `one-${Math.random().toString(36).slice(2)}.jsonl`)
  await writeFile(calls, '{"callId": "c1", "name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
  return calls
}

describe('a calls file that cannot be read as one is one line, exit 1, no hang', () => {
  test.each([
    ['missing', () => join(dir, 'nope.jsonl'), /no such file$/],
    ['a directory', () => join(dir, 'a-directory'), /it is a directory; pass a file$/],
    ['a FIFO', () => join(dir, 'calls.fifo'), /it is a FIFO, not a regular file; save the input to a file first$/],
    ['/dev/zero', () => '/dev/zero', /it is a device, not a regular file/],
  ])('%s', async (_, path, reason) => {
    const { code, stdout, stderr } = await dshkit(['run', path(), '--root', dir])
    const lines = stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^dshkit: .*: cannot read calls file: /)
    expect(lines[0]).toMatch(reason)
    expect(stdout).toBe('')
    expect(code).toBe(1)
  })
})

describe('a --log that is not a regular file: one line naming it, nothing runs, nothing is created next to it', () => {
  test.each([
    ['/dev/zero', () => '/dev/zero', /a character device/],
    ['/dev/full', () => '/dev/full', /a character device/],
    ['a FIFO', () => join(dir, 'log.fifo'), /a FIFO/],
    ['a directory', () => join(dir, 'a-directory'), /a directory/],
  ])('%s', async (_, path, kind) => {
    const calls = await oneCall()
    const before = await readdir(dir)
    const { code, stdout, stderr } = await dshkit(['run', calls, '--root', dir, '--log', path()])
    expect(stderr).toMatch(new RegExp(`session log ${path()} is not a regular file \\(it is ${kind.source}\\); pass the path of a regular file`))
    expect(stderr).not.toMatch(/\n\s+at /)
    expect(stdout).not.toMatch(/fs_read \[c1\]/) // no call ran
    expect(code).not.toBe(0)
    expect(existsSync(`${path()}.lock`)).toBe(false)
    expect(await readdir(dir)).toEqual(before)
  })

  test.each(['/dev/zero', join('FIFO'), 'a-directory'])('dshkit log %s is one line, exit 1', async (which) => {
    const path = which === 'FIFO' ? join(dir, 'log.fifo') : which.startsWith('/') ? which : join(dir, which)
    const { code, stdout, stderr } = await dshkit(['log', path])
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^dshkit: session log .* is not a regular file \(it is .*\); pass the path of a regular file/),
    ])
    expect(stdout).toBe('')
    expect(code).toBe(1)
  })
})

describe('per-line problems in the calls file do not abort the run', () => {
  test('an explicit callId equal to a later default id, a duplicate callId, 5,000-deep arguments: each names its line; the rest run', async () => {
    const calls = join(dir, 'clash.jsonl')
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)
    await writeFile(
      calls,
      [
        '\uFEFF{"callId": "line-2", "name": "fs_read", "arguments": {"path": "hello.txt"}}', // a BOM on line 1 is fine
        '{"name": "fs_read", "arguments": {"path": "hello.txt"}}',
        `{"name": "fs_read", "arguments": ${deep}}`,
        '{"callId": "line-2", "name": "fs_list", "arguments": {"path": "."}}',
        '{"callId": "last", "name": "fs_list", "arguments": {"path": "."}}',
      ].join('\n'),
    )
    const { code, stdout, stderr } = await dshkit(['run', calls, '--root', dir])
    expect(stderr.split('\n').filter((l) => l.includes('clash.jsonl:'))).toEqual([
      expect.stringMatching(/clash\.jsonl:2: its default callId "line-2" is already used by line 1; give this line its own "callId"$/),
      expect.stringMatching(/clash\.jsonl:3: "arguments" are nested more than 256 levels deep; flatten them$/),
      expect.stringMatching(/clash\.jsonl:4: callId "line-2" is already used by line 1; callIds must be unique$/),
    ])
    expect(stdout).toMatch(/✓ .*clash\.jsonl:1 fs_read \[line-2\] ok/)
    expect(stdout).toMatch(/✓ .*clash\.jsonl:5 fs_list \[last\] ok/)
    expect(stderr).not.toMatch(/\n\s+at |Maximum call stack/)
    expect(code).toBe(1)
  })

  test('a misspelled key on a line ("callid", "args") is that line\'s problem, not a call run without it', async () => {
    const calls = join(dir, 'typo.jsonl')
    await writeFile(
      calls,
      [
        '{"callid": "mine", "name": "fs_read", "arguments": {"path": "hello.txt"}}',
        '{"name": "fs_read", "args": {"path": "hello.txt"}}',
        '{"callId": "ok", "name": "fs_read", "arguments": {"path": "hello.txt"}}',
      ].join('\n'),
    )
    const { code, stdout, stderr } = await dshkit(['run', calls, '--root', dir])
    expect(stderr.split('\n').filter((l) => l.includes('typo.jsonl:'))).toEqual([
      expect.stringMatching(/typo\.jsonl:1: "callid": unknown key; did you mean "callId"\?$/),
      expect.stringMatching(/typo\.jsonl:2: "args": unknown key; valid keys: name, arguments, callId$/),
    ])
    expect(stdout).toMatch(/✓ .*typo\.jsonl:3 fs_read \[ok\] ok/)
    expect(stdout).not.toMatch(/typo\.jsonl:[12] /)
    expect(code).toBe(1)
  })

  test('a calls file that starts with a UTF-8 BOM runs cleanly', async () => {
    const calls = join(dir, 'bom.jsonl')
    await writeFile(calls, '\uFEFF{"name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
    const { code, stdout } = await dshkit(['run', calls, '--root', dir])
    expect(stdout).toMatch(/✓ .*bom\.jsonl:1 fs_read \[line-1\] ok/)
    expect(code).toBe(0)
  })
})

describe('terminal control sequences cannot repaint the human report', () => {
  test('in tool output, bad lines, tool names and file names they are printed escaped; --json keeps them as data', async () => {
    const calls = join(dir, `evil${ESC}[2J.jsonl`)
    await writeFile(
      calls,
      [
        '{"callId": "r", "name": "fs_read", "arguments": {"path": "repaint.txt"}}',
        '{"name": "no\\u001b[31mtool\\r", "arguments": {}}',
        `{"name": "fs_read", "arguments": ${ESC}[2J}`,
      ].join('\n'),
    )
    const human = await dshkit(['run', calls, '--root', dir])
    const printed = human.stdout + human.stderr
    expect(printed).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/) // no raw control character at all (only \t and \n)
    expect(human.stdout).toMatch(/\\x1b\]0;pwned\\x07\\x1b\[2J\\x1b\[H\\x0dfake ✓ all good\\x08\\x9b31m/)
    expect(human.stderr).toMatch(/evil\\x1b\[2J\.jsonl:2: unknown tool "no\\x1b\[31mtool\\x0d"/)
    expect(human.stderr).toMatch(/evil\\x1b\[2J\.jsonl:3: not JSON/)

    const json = await dshkit(['run', calls, '--root', dir, '--json'])
    const objects = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(objects.find((o) => o.callId === 'r').content[0].text).toContain(hostileText)
    expect(objects.find((o) => o.type === 'error' && o.line === 2).message).toContain(`no${ESC}[31mtool\r`)
  })

  test('dshkit log escapes them too', async () => {
    const log = join(dir, 'repaint-session.jsonl')
    const calls = join(dir, 'repaint-calls.jsonl')
    await writeFile(calls, '{"callId": "r\\u001b[2J", "name": "fs_read", "arguments": {"path": "repaint.txt"}}\n')
    expect((await dshkit(['run', calls, '--root', dir, '--log', log])).code).toBe(0)
    const { code, stdout } = await dshkit(['log', log])
    expect(stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    expect(stdout).toMatch(/✓ .* fs_read \[r\\x1b\[2J\] ok: \\x1b\]0;pwned\\x07/)
    expect(code).toBe(0)
  })
})

describe('a call whose outcome the session log could not record fails the run', () => {
  test('under a file-size limit (ulimit -f, SIGXFSZ ignored) the run exits 1 and names the calls not recorded', async () => {
    const root = await mkdtemp(join(dir, 'fsize-'))
    await writeFile(join(root, 'big.txt'), 'x'.repeat(3000))
    const calls = join(root, 'calls.jsonl')
    await writeFile(calls, ['a', 'b', 'c', 'd'].map((id) => JSON.stringify({ callId: id, name: 'fs_read', arguments: { path: 'big.txt' } })).join('\n'))
    const log = join(root, 'session.jsonl')
    // 16 blocks of 512 bytes: not room for all four ~3 KB results (group commit may fail them as one batch).
    const { code, stdout, stderr } = await dshkit(['run', calls, '--root', root, '--log', log], { shell: "trap '' XFSZ; ulimit -f 16" })
    expect(stdout, stderr).toMatch(/✓ .*calls\.jsonl:1 fs_read \[a\] ok/)
    expect(stderr).toMatch(
      /calls\.jsonl:\d: call "\w" (ran, but the session log could not record its result|was not run: the session log could not record it first)/,
    )
    expect(stderr).toMatch(/4 call line\(s\), 0 input problem\(s\), [1-4] call\(s\) not run or not recorded \((\w, )*d\)/)
    expect(code).toBe(1)
    // What is on disk is still a valid log that starts with the recorded call.
    const events = (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
    expect(events[0]).toMatchObject({ type: 'tool/call', callId: 'a' })
  })
})

test('Ctrl-C mid-run: the calls not started are not run, the run says so and exits 130', async () => {
  const root = await mkdtemp(join(dir, 'sigint-'))
  await writeFile(join(root, 'a.txt'), 'a\n')
  const calls = join(root, 'calls.jsonl')
  // Thousands of fsynced appends: the batch outlives the first progress line by far.
  await writeFile(calls, Array.from({ length: 5000 }, () => '{"name": "fs_read", "arguments": {"path": "a.txt"}}').join('\n'))
  const child = spawn(process.execPath, [bin, 'run', calls, '--root', root, '--log', join(root, 's.jsonl')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 50_000,
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
    if (/calls done/.test(stderr) && !child.killed) child.kill('SIGINT')
  })
  const code = await new Promise((resolve) => child.on('close', resolve))
  expect(stderr).toMatch(/5000 call line\(s\), 0 input problem\(s\), interrupted: calls not started were not run/)
  expect(code).toBe(130)
}, 60_000)

test.each(['run', 'hooks'])('a --root whose name holds a newline or escapes is echoed on one escaped line (dshkit %s)', async (command) => {
  const root = `/nonexistent/x\ndshkit: all good${ESC}[2J`
  const args = command === 'run' ? ['run', '--root', root] : ['hooks', 'accept', '--root', root]
  const { code, stderr } = await dshkit(args)
  expect(code).toBe(1)
  expect(stderr.trim().split('\n')).toHaveLength(1)
  expect(stderr).toContain('\\x0a')
  expect(stderr).not.toContain(ESC)
})

import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { bin, dshkit } from './run-cli.js'

let dir: string
beforeAll(async () => {
  dir = await tempDir('dshkit-cli-')
  await writeFile(join(dir, 'hello.txt'), 'hello\nworld\n')
})
afterAll(cleanup)

describe('dshkit run (the bundled demo)', () => {
  test('prints every outcome and who decided it, and exits 0', async () => {
    const { code, stdout, stderr } = await dshkit(['run'])
    expect(stderr).toMatch(/running the bundled demo in /)
    expect(stdout).toMatch(/✓ demo\/calls\.jsonl:1 fs_read \[read-readme\] ok · \d+ ms\n {4}# acme-auth/)
    expect(stdout).toMatch(/✗ demo\/calls\.jsonl:3 fs_read \[escape\] DENIED by fs-sandbox \(listener\).*\n.*outside the sandbox roots/)
    expect(stdout).toMatch(/✗ demo\/calls\.jsonl:4 fs_read \[secrets\] DENIED by fs-sandbox \(listener\).*\n.*matches deny rule "\*\*\/\.env\*"/)
    expect(stdout).toMatch(
      /✗ demo\/calls\.jsonl:5 fs_write \[edit-manifest\] DENIED by approval \(approval\).*\n.*permission-policy asked for approval .*no one can approve here/,
    )
    expect(stdout).toMatch(/✓ demo\/calls\.jsonl:6 fs_edit \[note\] ok/)
    expect(stdout).toMatch(/✗ demo\/calls\.jsonl:7 wait_for_ci \[wait-ci\] TOOL_TIMEOUT by timeout-policy \(wrapper\).*\n.*timed out after 300 ms/)
    expect(stdout).toMatch(/✓ demo\/calls\.jsonl:8 fs_read \[read-log\] ok, content replaced by spill-policy/)
    expect(stdout).toMatch(/The full output is stored as spill sp_/)
    expect(stdout).toMatch(/✓ demo\/calls\.jsonl:9 spill_read \[find-error\] ok.*\n.*\n.*1987: \[1987\] ERROR test: auth\/session\.spec\.ts/)
    expect(stdout).toMatch(/✓ demo\/calls\.jsonl:10 shell \[look-around\] ok.*\n.*exit code 0 \(\d+ ms, sandboxed\)\n.*stdout:\n.*session\.js\n.*checked/)
    expect(stdout).toMatch(
      /✓ demo\/calls\.jsonl:11 shell \[sandboxed\] ok.*\n.*sandboxed\)\n.*stdout:\n.*\.env holds 0 bytes here\n.*Read-only file system\n.*no network/,
    )
    expect(code).toBe(0)
  })

  test('on a machine without bubblewrap it runs every call that needs no shell and names the install command', async () => {
    // A PATH with no bwrap on it: the machine as a fresh Debian install has it.
    const emptyPath = await tempDir('dshkit-no-bwrap-')
    const { code, stdout, stderr } = await dshkit(['run'], { env: { ...process.env, PATH: emptyPath } })
    expect(stderr).toMatch(
      /warn \[shell-sandbox\] every command will be refused, none runs unconfined: bubblewrap was not found at "bwrap"; install it \(as root: apt-get install -y bubblewrap\)/,
    )
    for (const line of [1, 2, 6, 8, 9]) expect(stdout).toMatch(new RegExp(`✓ demo/calls\\.jsonl:${line} `))
    for (const line of [10, 11])
      expect(stdout).toMatch(
        new RegExp(
          `✗ demo/calls\\.jsonl:${line} shell .*TOOL_ERROR.*\\n.*the sandboxed shell is unavailable: bubblewrap was not found at "bwrap"; install it \\(as root: apt-get install -y bubblewrap\\)`,
        ),
      )
    // Nothing ran: the file the first shell call writes is not there.
    const root = /running the bundled demo in (.*)\n/.exec(stderr)![1]
    await expect(readFile(join(root, 'notes/checked.txt'))).rejects.toThrow(/ENOENT/)
    expect(stderr).toMatch(/dshkit: 11 call line\(s\), 0 input problem\(s\)/)
    expect(code).toBe(0)
  })

  test('--json prints one parseable object per call with the decider', async () => {
    const { code, stdout } = await dshkit(['run', '--json'])
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const results = lines.filter((l) => l.type === 'result')
    expect(results.map((r) => r.callId)).toEqual([
      'read-readme',
      'list-src',
      'escape',
      'secrets',
      'edit-manifest',
      'note',
      'wait-ci',
      'read-log',
      'find-error',
      'look-around',
      'sandboxed',
    ])
    expect(results.find((r) => r.callId === 'escape')).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'fs-sandbox' }, decidedBy: 'listener' })
    expect(results.find((r) => r.callId === 'read-log').meta.spill.id).toMatch(/^sp_/)
    expect(code).toBe(0)
  })
})

describe('dshkit run with bad input', () => {
  test('each bad line is one error naming file and line; the other lines still run; exit 1', async () => {
    const calls = join(dir, 'calls.jsonl')
    await writeFile(
      calls,
      [
        '{"callId": "ok-1", "name": "fs_read", "arguments": {"path": "hello.txt"}}',
        '{"name": "fs_read", "arguments": ',
        '{"name": "no_such_tool", "arguments": {}}',
        '{"arguments": {}}',
        '{"callId": "ok-2", "name": "fs_list", "arguments": {"path": "."}}',
        '{"name": "spill_read", "arguments": {"id": {"$from": "nowhere", "path": "meta.spill.id"}}}',
      ].join('\n'),
    )
    const { code, stdout, stderr } = await dshkit(['run', calls, '--root', dir])
    const errors = stderr.split('\n').filter((line) => line.includes('calls.jsonl:'))
    expect(errors).toEqual([
      expect.stringMatching(/calls\.jsonl:2: not JSON/),
      expect.stringMatching(/calls\.jsonl:4: needs a "name"/),
      expect.stringMatching(/calls\.jsonl:3: unknown tool "no_such_tool"; available: /),
      expect.stringMatching(/calls\.jsonl:6: refers to call "nowhere", which has not run before this line/),
    ])
    expect(stdout).toMatch(/✓ .*calls\.jsonl:1 fs_read \[ok-1\] ok/)
    expect(stdout).toMatch(/✓ .*calls\.jsonl:5 fs_list \[ok-2\] ok/)
    expect(stderr).not.toMatch(/\n\s+at /)
    expect(code).toBe(1)
  })

  test('a missing calls file is one line and exit 1, no stack trace', async () => {
    const { code, stderr, stdout } = await dshkit(['run', join(dir, 'nope.jsonl')])
    expect(stderr.trim()).toMatch(/^dshkit: .*nope\.jsonl: cannot read calls file: no such file$/)
    expect(stdout).toBe('')
    expect(code).toBe(1)
  })

  test('a config with bad entries reports each in one line and runs no call', async () => {
    const config = join(dir, 'cordis.yml')
    await writeFile(
      config,
      [
        'plugins:',
        "  - name: '@dshkit/dsh-base'",
        "  - name: '@acme/missing-plugin'",
        "  - name: '@dshkit/retry-policy'",
        '    config: { maxAttempts: -1 }',
      ].join('\n'),
    )
    const calls = join(dir, 'one.jsonl')
    await writeFile(calls, '{"name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
    const { code, stdout, stderr } = await dshkit(['run', calls, '--config', config, '--root', dir])
    expect(stderr).toMatch(/cordis\.yml entry #2 \(@acme\/missing-plugin\): package "@acme\/missing-plugin" not found/)
    expect(stderr).toMatch(/cordis\.yml entry #3 \(@dshkit\/retry-policy\): invalid config: maxAttempts/)
    expect(stdout).toBe('')
    expect(code).toBe(1)
  })

  test('a --root that does not exist is one line and exit 1, before anything runs', async () => {
    const { code, stderr, stdout } = await dshkit(['run', join(dir, 'hello.txt'), '--root', join(dir, 'no-such-dir')])
    expect(stderr.trim()).toMatch(/^dshkit: --root .*no-such-dir: no such directory; pass the workspace folder the tools may use$/)
    expect(stdout).toBe('')
    expect(code).toBe(1)
  })

  test('a session log another process holds is a boot failure in plain lines, no stack trace', async () => {
    const log = join(dir, 'held.jsonl')
    await writeFile(`${log}.lock`, '1') // pid 1 is alive and is not us
    const calls = join(dir, 'held-calls.jsonl')
    await writeFile(calls, '{"name": "fs_list", "arguments": {"path": "."}}\n')
    const { code, stderr, stdout } = await dshkit(['run', calls, '--root', dir, '--log', log])
    expect(stderr).toMatch(
      /^dshkit: embedded default: plugin "session-store-jsonl" failed to start: session log .*held\.jsonl is already open for writing by process 1/,
    )
    expect(stderr).not.toMatch(/\n\s+at /)
    expect(stdout).toBe('')
    expect(code).toBe(1)
  })

  test('a config that provides no tools is a boot failure: exit 1, one message', async () => {
    const config = join(dir, 'empty.yml')
    await writeFile(config, 'plugins: []\n')
    const calls = join(dir, 'boot.jsonl')
    await writeFile(calls, '{"name": "fs_list", "arguments": {"path": "."}}\n')
    const { code, stderr } = await dshkit(['run', calls, '--config', config])
    expect(stderr.trim()).toMatch(/^dshkit: .*empty\.yml: nothing provides "tools" and "loop"/)
    expect(code).toBe(1)
  })
})

describe('usage', () => {
  test('no command or an unknown one prints usage and exits 2', async () => {
    expect((await dshkit([])).code).toBe(2)
    const unknown = await dshkit(['frobnicate'])
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/)
    expect(unknown.code).toBe(2)
    const flag = await dshkit(['run', '--bogus'])
    expect(flag.stderr).toMatch(/Unknown option '--bogus'/)
    expect(flag.code).toBe(2)
  })

  test.each(['run', 'tools', 'log'])('%s --help explains the command and exits 0', async (command) => {
    const { code, stdout } = await dshkit([command, '--help'])
    expect(stdout).toMatch(new RegExp(`^dshkit ${command} `))
    expect(code).toBe(0)
  })
})

describe('what a newcomer tries', () => {
  test('--version prints the package version and exits 0', async () => {
    const version = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')).version
    const { code, stdout } = await dshkit(['--version'])
    expect(stdout).toBe(`dshkit ${version}\n`)
    expect(code).toBe(0)
  })

  test('explain refuses a line run would refuse (an unknown tool): exit 1, the other lines judged', async () => {
    const calls = join(dir, 'explain-unknown.jsonl')
    await writeFile(calls, '{"name": "fs_reed", "arguments": {"path": "hello.txt"}}\n{"name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
    const { code, stdout, stderr } = await dshkit(['explain', calls, '--root', dir])
    expect(stderr).toMatch(/explain-unknown\.jsonl:1: unknown tool "fs_reed"; available: .*fs_read/)
    expect(stdout).toMatch(/explain-unknown\.jsonl:2 fs_read/)
    expect(stdout).not.toMatch(/:1 fs_reed/)
    expect(code).toBe(1)
  })

  test('run without --log says nothing was kept; --trace puts each plugin turn on the result', async () => {
    const calls = join(dir, 'traced.jsonl')
    await writeFile(calls, '{"callId": "t1", "name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
    const plain = await dshkit(['run', calls, '--root', dir])
    expect(plain.stderr).toMatch(/no session log kept \(pass --log FILE to keep one\)\n$/)
    const traced = await dshkit(['run', calls, '--root', dir, '--trace', '--json'])
    const result = traced.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.type === 'result')
    expect(result.meta.trace.map((entry: { plugin: string }) => entry.plugin)).toContain('fs-sandbox')
    expect(traced.code).toBe(0)
  })

  test('--root or --trace with a config that has no entry to take it is an error, not an option dropped', async () => {
    const config = join(dir, 'bare.yml')
    await writeFile(config, "plugins:\n  - name: '@dshkit/agent-loop'\n")
    const calls = join(dir, 'bare.jsonl')
    await writeFile(calls, '{"name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
    const root = await dshkit(['run', calls, '--config', config, '--root', dir])
    expect(root.stderr).toMatch(
      /--root applies to @dshkit\/dsh-base, @dshkit\/fs-sandbox, @dshkit\/fs-local entries; .*bare\.yml has none, so it would be ignored: drop --root and set the roots in your config/,
    )
    expect(root.code).toBe(1)
    const trace = await dshkit(['run', calls, '--config', config, '--trace'])
    expect(trace.stderr).toMatch(/--trace applies to @dshkit\/dsh-base, @dshkit\/tools entries; .*bare\.yml has none/)
    expect(trace.code).toBe(1)
  })
})

test('dshkit tools lists tools with their JSON Schemas', async () => {
  const { code, stdout } = await dshkit(['tools', '--json', '--root', dir])
  const schemas = JSON.parse(stdout)
  expect(schemas.map((s: any) => s.name).sort()).toEqual([
    'fs_edit',
    'fs_list',
    'fs_read',
    'fs_write',
    'job_kill',
    'job_list',
    'job_output',
    'shell',
    'spill_read',
  ])
  expect(schemas.find((s: any) => s.name === 'fs_read').inputSchema).toMatchObject({ type: 'object', required: ['path'] })
  expect(code).toBe(0)
})

describe('dshkit log', () => {
  test('replays a log written by --log, and lists interrupted calls', async () => {
    const log = join(dir, 'session.jsonl')
    const calls = join(dir, 'log-calls.jsonl')
    await writeFile(calls, '{"callId": "r1", "name": "fs_read", "arguments": {"path": "hello.txt"}}\n')
    expect((await dshkit(['run', calls, '--root', dir, '--log', log])).code).toBe(0)
    // What a crash leaves: a call recorded as started with no result.
    await writeFile(
      log,
      (await readFile(log, 'utf8')) +
        JSON.stringify({ type: 'tool/call', callId: 'w1', name: 'fs_write', arguments: { path: 'x' }, time: new Date().toISOString() }) +
        '\n',
    )
    const before = await readFile(log, 'utf8')
    const { code, stdout } = await dshkit(['log', log])
    expect(stdout).toMatch(/→ .* fs_read \[r1\]/)
    expect(stdout).toMatch(/✓ .* fs_read \[r1\] ok: hello/)
    expect(stdout).toMatch(/◦ .* read \[r1\] .*hello\.txt \([0-9a-f]{12}\)/) // tool-fs's fs/observed
    expect(stdout).toMatch(/4 events, 2 calls, 1 interrupted\n {2}interrupted: fs_write \[w1\]/)
    expect(await readFile(log, 'utf8')).toBe(before)
    expect(code).toBe(0)
  })

  test('a missing log is one line and exit 1', async () => {
    const { code, stderr } = await dshkit(['log', join(dir, 'missing.jsonl')])
    expect(stderr.trim()).toMatch(/^dshkit: .*missing\.jsonl: cannot read session log: no such file$/)
    expect(code).toBe(1)
  })
})

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

describe.skipIf(!hasScript)('on a terminal (a real pseudo-terminal through util-linux script)', () => {
  /** Runs dshkit under a pty and types `answer` once the approval prompt shows. */
  function onTerminal(args: string[], answer: string) {
    return new Promise<{ code: number | null; output: string }>((resolve) => {
      const command = [process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ')
      const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
      let output = ''
      let answered = false
      child.stdout.on('data', (chunk) => {
        output += chunk
        if (!answered && output.includes('[y]es / [n]o')) {
          answered = true
          child.stdin.write(answer)
        }
      })
      child.on('close', (code) => resolve({ code, output }))
    })
  }

  test.each([
    ['y\n', /→ allowed[\s\S]*✓ .*fs_write \[w\] ok/, '{"x":1}'],
    ['n\n', /✗ .*fs_write \[w\] DENIED by approval/, '{}'],
  ])('an ask is put to the user: answer %j', async (answer, outcome, content) => {
    const root = await mkdtemp(join(dir, 'tty-'))
    await writeFile(join(root, 'package.json'), '{}')
    const config = join(root, 'cordis.yml')
    await writeFile(
      config,
      "plugins:\n  - name: '@dshkit/dsh-base'\n    config:\n      permission-policy:\n        rules: [{ tool: fs_write, decision: ask, reason: writes need a yes }]\n",
    )
    const calls = join(root, 'calls.jsonl')
    await writeFile(calls, '{"callId": "w", "name": "fs_write", "arguments": {"path": "package.json", "content": "{\\"x\\":1}"}}\n')
    const { code, output } = await onTerminal(['run', calls, '--config', config, '--root', root], answer)
    expect(output).toMatch(/approval needed: fs_write\s+asked by {2}permission-policy: rule #1 \(ask fs_write\): writes need a yes/)
    expect(output).toMatch(outcome)
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe(content)
    expect(code).toBe(0)
  })
})

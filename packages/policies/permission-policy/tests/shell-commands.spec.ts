import { mkdir, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import LocalFs from '@dshkit/fs-local'
import LocalShell from '@dshkit/shell-local'
import { boot, cleanup, tempDir, propertySeed } from '@dshkit/testing'
import { defineTool, type ApprovalRequest } from '@dshkit/tools'
import fc from 'fast-check'
import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import PermissionPolicy, { type ConfigInput } from '../src/index.js'
import { corpus, corpusRules } from './shell-corpus.js'

afterEach(cleanup)

/**
 * A workspace (fs-local's cwd) with a `shell` tool of tool-shell's name and arguments that records the
 * line instead of running it (the corpus holds `rm -rf /`), the policy, and an approval service that
 * records each question and answers no, as headless approval does.
 */
async function pipeline(config: ConfigInput, shellCwd?: (root: string) => string) {
  const root = await tempDir('dshkit-permission-shell-')
  await mkdir(join(root, 'out'))
  await symlink('../.env', join(root, 'out', 'env-link'))
  const ran: string[] = []
  const asked: ApprovalRequest[] = []
  const shell = defineTool({
    name: 'shell',
    description: 'run a shell command',
    parameters: z.object({ command: z.string(), cwd: z.string().optional(), timeoutMs: z.number().optional(), description: z.string().optional() }),
    execute: ({ command }) => (ran.push(command), 'ran'),
  })
  const providers: [unknown, unknown][] = [[LocalFs, { cwd: root }]]
  if (shellCwd) providers.push([LocalShell, { cwd: shellCwd(root) }])
  const booted = await boot({ plugins: providers as never, tools: [shell] })
  booted.ctx.provide('approval', { request: async (req: ApprovalRequest) => (asked.push(req), { kind: 'deny' as const, reason: 'headless' }) })
  await booted.plug(PermissionPolicy, config)
  /** What happened to one call: `allow` (it ran), `ask` (someone was asked) or `deny` (refused without asking). */
  const decide = async (args: { command: string; cwd?: string }) => {
    const before = { ran: ran.length, asked: asked.length }
    const result = await booted.call('shell', args)
    if (ran.length > before.ran) return { decision: 'allow', result }
    return { decision: asked.length > before.asked ? 'ask' : 'deny', result, question: asked.at(-1) }
  }
  return { root, decide }
}

test('the corpus has at least 40 lines, of every decision', () => {
  expect(corpus.length).toBeGreaterThanOrEqual(40)
  for (const decision of ['allow', 'ask', 'deny']) expect(corpus.some(([, expected]) => expected === decision)).toBe(true)
})

test.each(corpus)('%j → %s', async (line, expected) => {
  const { decide } = await pipeline(corpusRules)
  const { decision } = await decide({ command: line })
  expect(decision).toBe(expected)
})

test('a denial names the rule and the command it caught, inside the compound line', async () => {
  const { decide } = await pipeline(corpusRules)
  const { result } = await decide({ command: 'echo hi && rm -rf /' })
  expect(result).toMatchObject({
    isError: true,
    error: {
      code: 'DENIED',
      source: 'permission-policy',
      message: 'rule #3 (deny shell command ["rm -rf *", "rm -fr *", "curl *", "wget *"]): destroys or downloads (in `rm -rf /`)',
    },
  })
})

test('a line the parser cannot read is a question saying why, never an allow — even under a blanket allow', async () => {
  const { decide } = await pipeline({
    rules: [
      { tool: 'shell', command: 'rm *', decision: 'deny' },
      { tool: 'shell', decision: 'allow' },
    ],
  })
  const { decision, question } = await decide({ command: 'echo "unterminated && rm -rf /' })
  expect(decision).toBe('ask')
  expect(question?.reason).toMatch(
    /^cannot judge the shell command against rule #1 \(deny shell command "rm \*"\): the (shell parser cannot read|command is incomplete)/,
  )
  expect((await decide({ command: 'ls' })).decision).toBe('allow')
})

test('eval and a run-time command name are questions, never allowed by an allow-everything command pattern', async () => {
  const { decide } = await pipeline({ rules: [{ tool: 'shell', command: '*', decision: 'allow' }] })
  expect(await decide({ command: 'ls -la' })).toMatchObject({ decision: 'allow' })
  expect(await decide({ command: 'eval "$(cat x)"' })).toMatchObject({
    decision: 'ask',
    question: { reason: expect.stringContaining('`eval` runs text only known at run time') },
  })
  expect(await decide({ command: 'ls; $CMD x' })).toMatchObject({
    decision: 'ask',
    question: { reason: expect.stringContaining('the command name $CMD is only known at run time') },
  })
})

test('a deny that depends on a run-time word asks instead, saying so', async () => {
  const { decide } = await pipeline({ rules: [{ tool: 'shell', command: 'rm -rf *', decision: 'deny' }] })
  const { decision, question } = await decide({ command: 'rm $FLAGS /' })
  expect(decision).toBe('ask')
  expect(question?.reason).toBe(
    'rule #1 (deny shell command "rm -rf *") may match `rm $FLAGS /`, depending on what is only known at run time (a $VARIABLE, a $(…), the directory after cd)',
  )
})

test('redirect targets are judged where they land: through the call cwd, `..` and symlinks', async () => {
  const { decide, root } = await pipeline(corpusRules)
  expect((await decide({ command: 'echo x > ../.env', cwd: 'out' })).decision).toBe('deny')
  expect((await decide({ command: 'echo x > out/env-link' })).decision).toBe('deny')
  expect((await decide({ command: `echo x > ${root}/.git/config` })).decision).toBe('deny')
  expect((await decide({ command: 'echo x > log.txt', cwd: 'out' })).decision).toBe('allow')
  // Allowed writes must land under out/ in every spelling: out/../x.txt does not.
  expect((await decide({ command: 'echo x > out/../x.txt' })).decision).toBe('ask')
  // After cd a relative target could be anywhere: never allowed, still denied when its name is protected.
  expect((await decide({ command: 'cd /etc; echo x > out/passwd' })).decision).toBe('ask')
  expect((await decide({ command: 'cd ..; echo x > .env' })).decision).toBe('deny')
})

test('with a shell provider up, targets resolve against its cwd, as the shell tool runs them', async () => {
  const { decide } = await pipeline(corpusRules, (root) => join(root, 'out'))
  expect((await decide({ command: 'echo x > log.txt' })).decision).toBe('allow')
  expect((await decide({ command: 'echo x > ../.env' })).decision).toBe('deny')
  expect((await decide({ command: 'echo x > ../log.txt' })).decision).toBe('ask')
})

test('without command rules, shell calls are not parsed and behave as before', async () => {
  const { decide } = await pipeline({ rules: [{ tool: 'shell', decision: 'allow' }], default: 'deny' })
  expect((await decide({ command: 'echo "unterminated' })).decision).toBe('allow')
})

test.each([
  [
    { rules: [{ tool: 'shell', command: '', decision: 'deny' }] },
    'command pattern "" is empty; write e.g. "git status*" or "npm run test:*" (at rules.0.command)',
  ],
  [{ rules: [{ tool: 'shell', command: [], decision: 'deny' }] }, 'must list at least one (at rules.0.command)'],
  [{ rules: [{ tool: 'shell', writes: [''], decision: 'deny' }] }, 'a `writes` value must be a non-empty glob (at rules.0.writes.0)'],
  [
    { rules: [{ tool: 'shell', writes: 'out/**', decision: 'allow' }] },
    'an allow rule with `writes` must also name its commands with `command` (e.g. command: "echo *") (at rules.0.writes)',
  ],
  [{ rules: [{ tool: 'shell', comand: 'rm *', decision: 'deny' }] }, 'did you mean "command"?'],
])('%j is refused: %s', async (config, message) => {
  const { ctx } = await boot()
  await expect(ctx.plugin(PermissionPolicy, config as never)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

const seed = propertySeed()

test('property: appending `; <denied command>` or `&& <denied command>` to an allowed line never yields allow', async () => {
  console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  const { decide } = await pipeline(corpusRules)
  // Lines the corpus allows that end where a new command may start (not in a comment or a heredoc).
  const allowedLines = corpus.filter(([line, expected]) => expected === 'allow' && !line.includes('#') && !line.includes('<<')).map(([line]) => line)
  const simple = ['git status', 'git log -1', 'ls', 'pwd', 'cat a.txt', 'grep -r x .', 'echo "a; b"', 'git diff --stat']
  const joined = fc
    .tuple(fc.array(fc.constantFrom(...simple), { minLength: 1, maxLength: 4 }), fc.constantFrom(' && ', '; ', ' | ', ' || ', '\n'))
    .map(([commands, glue]) => commands.join(glue))
  const allowed = fc.oneof(fc.constantFrom(...allowedLines), joined)
  const core = fc.constantFrom('rm -rf /', 'rm -fr ~', 'curl evil.example', 'wget x', 'echo x > .env', 'echo x >> .git/hooks/pre-commit')
  const wrapper = fc.constantFrom('', 'timeout 5 ', 'env X=1 ', 'sudo ', 'command ', 'nohup ', 'nice -n 2 ', '\\')
  const shape = fc.constantFrom(
    (c: string) => c,
    (c: string) => `echo $(${c})`,
    (c: string) => `bash -c '${c}'`,
    (c: string) => `( ${c} )`,
    (c: string) => `{ ${c}; }`,
    (c: string) => `echo \`${c}\``,
  )
  const denied = fc.tuple(core, wrapper, shape).map(([c, w, s]) => s(w + c))
  await fc.assert(
    fc.asyncProperty(allowed, fc.constantFrom('; ', ' && ', ';', '&&'), denied, async (line, glue, extra) => {
      expect((await decide({ command: line })).decision).toBe('allow')
      expect((await decide({ command: line + glue + extra })).decision).not.toBe('allow')
    }),
    { numRuns: 300, seed, verbose: 1 },
  )
})

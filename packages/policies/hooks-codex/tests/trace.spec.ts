import { join } from 'node:path'
import { defineTool } from '@dshkit/tools'
import { boot, tempDir } from '@dshkit/testing'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksCodex, { type ConfigInput } from '../src/index.js'
import { lines, put, useCodexHome } from './setup.js'

useCodexHome()

/** A `shell` tool (Bash to Codex hooks) that records what ran, and this plugin reading `.codex/hooks.json`. */
async function codex(command: string, config: Partial<ConfigInput> = {}) {
  const projectDir = await tempDir('hooks-codex-trace-')
  const file = join(projectDir, '.codex/hooks.json')
  await put(file, { hooks: { PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command, timeout: 10 }] }] } })
  const ran: string[] = []
  const shell = defineTool({ name: 'shell', description: 'pretend', parameters: z.object({ cmd: z.string() }), execute: ({ cmd }) => (ran.push(cmd), 'ok') })
  const booted = await boot({ tools: [shell] })
  await booted.plug(HooksCodex, {
    configPath: '.codex/hooks.json',
    projectDir,
    toolNames: { shell: { name: 'Bash', arguments: { command: 'cmd' } } },
    ...config,
  })
  const explain = (cmd: string) => booted.ctx.tools.explain({ callId: 'e1', name: 'shell', arguments: { cmd } })
  return { booted, projectDir, file, ran, explain }
}

describe('explain with Codex hooks', () => {
  test('by default the hook does not run in a dry run; it is listed with its matcher and file', async () => {
    const { explain, ran, projectDir, file } = await codex(`echo ran >> ran.log; echo 'no shell today' >&2; exit 2`)
    const explanation = await explain('ls')
    expect(explanation.decision).toEqual({ kind: 'allow' })
    expect(explanation.trace[0]).toMatchObject({
      phase: 'pre-execute',
      plugin: 'hooks-codex',
      decision: 'pass',
      detail: { hooks: [{ event: 'PreToolUse', matcher: '^Bash$', file }], notJudged: expect.stringContaining('not run in a dry run') },
    })
    expect(await lines(join(projectDir, 'ran.log'))).toEqual([])
    expect(ran).toEqual([])
  })

  test("dryRun: 'run': the hook judges, and the denial names it in the trace", async () => {
    const command = `echo 'no shell today' >&2; exit 2`
    const { explain, ran, file } = await codex(command, { dryRun: 'run' })
    const explanation = await explain('ls')
    expect(explanation.decision).toEqual({ kind: 'deny', code: 'DENIED', by: 'listener', source: `hooks-codex: ${command}`, reason: 'no shell today' })
    expect(explanation.trace[0].detail).toEqual({
      hooks: [{ event: 'PreToolUse', matcher: '^Bash$', command, file, decision: 'block', reason: 'no shell today' }],
    })
    expect(ran).toEqual([])
  })
})

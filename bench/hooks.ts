// What does running a tool call through hooks-claude-code cost on top of spawning the hook
// command itself? One no-op PreToolUse hook per call, next to a bare `spawn('bash', ['-c', cmd])`
// (Claude Code's default hook shell, which the bridge uses too) that is sent the same payload and
// awaited until it closes, measured in the same run.
import { spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { runHook } from '@dshkit/hook-protocol'
import HooksClaudeCode from '@dshkit/hooks-claude-code'
import { compare, machine, table } from './support/measure.js'
import { withTools } from './support/tools.js'

const log = (message: string) => process.stderr.write(`hooks: ${message}\n`)
// Two no-op shell commands, and a no-op node script: what a typical hook costs just to start.
const commands = [
  { command: 'true', rounds: 15, batch: 25 },
  { command: 'cat > /dev/null', rounds: 15, batch: 25 },
  { command: 'node -e 0', rounds: 7, batch: 3 },
]
const args = { path: 'src/index.ts', content: 'export {}\n' }

async function boot(command: string | undefined) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-hooks-'))
  const hooks = command ? { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command }] }] } : {}
  await writeFile(join(dir, 'settings.json'), JSON.stringify({ hooks }))
  const ctx = await withTools(
    'bench-tools',
    (ctx) => void ctx.tools.register({ name: 'fs_write', description: 'no-op', parameters: z.any(), execute: () => 'ok' }),
  )
  await ctx.plugin(HooksClaudeCode, { configPath: 'settings.json', projectDir: dir, sessionId: 'bench' })
  return { ctx, dir }
}

/** The same JSON a hook receives, so the bare spawn writes as many bytes. */
function payloadFor(dir: string) {
  return JSON.stringify({
    session_id: 'bench',
    transcript_path: '',
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(dir, args.path), content: args.content },
    tool_use_id: 'b',
  })
}

function bareSpawn(command: string, cwd: string, input: string, detached = false): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, detached })
    child.stdin.on('error', () => {})
    child.stdout.resume()
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', (code) => resolve(code))
    child.stdin.end(input)
  })
}

const rows: (string | number)[][] = []
for (const { command, rounds, batch } of commands) {
  const { ctx, dir } = await boot(command)
  const input = payloadFor(dir)
  log(`command \`${command}\``)
  const result = await ctx.tools.execute({ callId: 'b', name: 'fs_write', arguments: args })
  if (result.isError) throw new Error(`the hooked call failed: ${JSON.stringify(result)}`)
  const us = await compare(
    {
      bare: () => bareSpawn(command, dir, input),
      detached: () => bareSpawn(command, dir, input, true),
      runHook: () => runHook({ command, shell: ['bash', '-c'], payload: JSON.parse(input), cwd: dir }),
      dshkit: () => ctx.tools.execute({ callId: 'b', name: 'fs_write', arguments: args }),
    },
    { rounds, batch, warmup: batch },
  )
  rows.push([`\`${command}\``, us.bare / 1000, us.detached / 1000, us.runHook / 1000, us.dshkit / 1000, us.dshkit / us.bare, us.dshkit / us.detached])
}

log('pipeline floor without hooks')
const { ctx: unhooked } = await boot(undefined)
const floor = await compare(
  { call: () => unhooked.tools.execute({ callId: 'b', name: 'fs_write', arguments: args }) },
  { rounds: 11, batch: 2000, warmup: 2000 },
)

console.log(`## hooks

Per call, median ms (${machine()}): a tool call through \`@dshkit/hooks-claude-code\` with one no-op
PreToolUse hook (\`dshkit\`), the hook run alone through \`runHook\`, and a bare \`spawn('bash', ['-c', cmd])\`
sent the same payload and awaited until it closes (\`bare\`; \`own session\` is the same spawn with
\`detached: true\`, which is how runHook gets a process group it can kill), interleaved in one run.

${table(['hook command', 'bare spawn', 'bare, own session', 'runHook', 'dshkit call + hook', 'dshkit / bare', 'dshkit / own session'], rows)}

The same call with no hooks configured costs ${floor.call.toFixed(1)} µs: nearly all of a hooked call is the
process. Against a spawn with the same process-group isolation the ratio is about 1; over a plain
spawn dshkit adds mostly that isolation (a new session per hook: under 1 ms to a few ms here,
depending on load), which is what lets a timeout kill the hook's children too.`)

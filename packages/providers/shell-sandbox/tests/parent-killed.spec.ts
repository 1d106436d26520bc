import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually, onCleanup } from '@dshkit/testing'
import { makeTree } from './helpers.js'

afterEach(cleanup)

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')

function hostProcessesWith(token: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(token)
      } catch {
        return false
      }
    })
    .map(Number)
}

function parentOf(pid: number): number | undefined {
  try {
    // The fields after the command name (which may hold spaces) start at the last ')'.
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ')[1])
  } catch {
    return undefined
  }
}

test('when the process hosting the shell is SIGKILLed, the sandboxed command dies with it', async () => {
  const { root } = await makeTree()
  const token = `dshkit-orphan-${process.pid}-${Date.now()}`
  // A separate node (the built package, as a user runs it) hosts the sandbox; it cannot clean up after a SIGKILL.
  const code = `
    import { Context } from 'cordis'
    import ShellSandbox from '@dshkit/shell-sandbox'
    const ctx = new Context()
    await ctx.plugin(ShellSandbox, { roots: [${JSON.stringify(root)}] })
    while (!ctx.get('shell')) await new Promise((resolve) => setTimeout(resolve, 10))
    ctx.get('shell').run({ command: "env -i setsid sh -c 'touch started; while :; do sleep 1; done' ${token}" })
    setInterval(() => {}, 1000)
  `
  const host = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  host.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  onCleanup(() => {
    host.kill('SIGKILL')
  })
  // In transaction mode `started` lands only when the command ends: its process running is the sign. Waited for
  // together with the host's one view holder: under load the command's launch and the holder's start overlap.
  const holdersOfHost = () => hostProcessesWith('dshkit-view').filter((pid) => parentOf(pid) === host.pid)
  const holders = (await eventually(
    () => {
      if (stderr) return Promise.reject(new Error(stderr))
      const running = hostProcessesWith(token).filter((pid) => pid !== host.pid)
      const held = holdersOfHost()
      return running.length > 0 && held.length === 1 ? held : false
    },
    { timeoutMs: 30_000 }, // a loaded machine starts node slowly
  )) as number[]
  expect(holders).toHaveLength(1)
  host.kill('SIGKILL')
  await eventually(() => expect(hostProcessesWith(token)).toEqual([]), { timeoutMs: 5000 })
  // The copy-on-write holder (and so every tmpfs in its namespace) goes too: it ends at EOF on its stdin.
  await eventually(() => expect(holders.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]), { timeoutMs: 5000 })
}, 60_000)

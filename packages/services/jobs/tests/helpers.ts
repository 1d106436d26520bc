import { readdirSync, readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import ShellLocal from '@dshkit/shell-local'
import { boot, eventually, type PluginEntry } from '@dshkit/testing'
import Jobs, { type ConfigInput } from '../src/index.js'

/** The real unconfined provider of the shell seam. */
export const Shell: PluginEntry = [ShellLocal, { cwd: process.cwd() }]

/** A marker every process of a test's jobs inherits (through the env), so leftovers can be found by it. */
export function marker() {
  const token = randomUUID()
  return { env: { JOBS_TEST_TOKEN: token }, token }
}

/** Live (non-zombie) processes whose environment carries `token`: what `ps` would show left behind. */
export function leftovers(token: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(`JOBS_TEST_TOKEN=${token}`)) found.push(Number(entry))
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

/** Waits until no process carrying `token` is left (a few ms of lag for the kernel's bookkeeping), else fails. */
export async function nothingLeft(token: string) {
  await eventually(
    () => {
      const left = leftovers(token)
      if (left.length) throw new Error(`processes left behind: ${left.join(', ')}`)
    },
    { timeoutMs: 3000 },
  )
}

export async function setup(config: ConfigInput = {}, before: PluginEntry[] = []) {
  const booted = await boot({ plugins: [...before, Shell, [Jobs, config]] })
  return { ...booted, jobs: booted.ctx.jobs }
}

import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'cordis'
import { boot } from '@dshkit/testing'
import { ShellService, type ShellLaunch, type ShellSpec } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
export const fixture = (name: string) => join(fixtures, name)

export interface TestShellOptions {
  cwd?: string
  /** Replaces `bash` (to test a missing shell). */
  file?: string
  /** Thrown from launch (to test a provider that refuses). */
  refuse?: string
}

/** The smallest provider: `bash -c`, nothing else; the seam under test does the rest. */
export class TestShell extends ShellService {
  readonly sandboxed = false
  readonly cwd: string

  constructor(ctx: Context, private readonly options: TestShellOptions = {}) {
    super(ctx)
    this.cwd = options.cwd ?? process.cwd()
  }

  protected launch(spec: ShellSpec): ShellLaunch {
    if (this.options.refuse) throw new Error(this.options.refuse)
    return { file: this.options.file ?? 'bash', args: ['-c', spec.command] }
  }
}

export async function testShell(options?: TestShellOptions): Promise<ShellService> {
  const { ctx } = await boot({ plugins: [[{ name: 'test-shell', apply: (ctx: Context, config: TestShellOptions) => { new TestShell(ctx, config) } }, options ?? {}]] })
  return ctx.shell
}

/** A sleep duration no other process uses, so `ps` can tell a test's sleepers apart. */
export function uniqueSleep(): string {
  return `1000.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`
}

/** Pids of live processes whose command line (as `ps` shows it) contains `text`. */
export function psMatching(text: string): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' }).split('\n')
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, ...args]) => stat !== undefined && !stat.startsWith('Z') && args.join(' ').includes(text))
    .map(([pid]) => Number(pid))
}

/** Whether `pid` is a live process (a zombie counts as gone). */
export async function isLive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

export async function readPid(file: string): Promise<number> {
  return Number((await readFile(file, 'utf8')).trim())
}

/** Zombie children of this test process: what a spawner that forgot to wait would leave. */
export function ourZombies(): string[] {
  const lines = execFileSync('ps', ['-o', 'pid=,stat=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n')
  return lines.map((line) => line.trim()).filter((line) => /\sZ/.test(line))
}

/** Ends processes a failed test left behind, so one failure does not pile up sleepers. */
export function killAll(pids: number[]) {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'cordis'
import { boot } from '@dshkit/testing'
import { ShellService, type ShellLaunch, type ShellSpec } from '../src/index.js'

export { isLive, killAll, psMatching, readPid, uniqueSleep } from '@dshkit/testing'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
export const fixture = (name: string) => join(fixtures, name)

export interface TestShellOptions {
  cwd?: string
  /** Replaces `bash` (to test a missing shell). */
  file?: string
  /** Thrown from launch (to test a provider that refuses). */
  refuse?: string
  /** Given to the program on fd 3. */
  fd3?: Uint8Array
}

/** The smallest provider: `bash -c`, nothing else; the seam under test does the rest. */
export class TestShell extends ShellService {
  readonly sandboxed = false
  readonly cwd: string

  constructor(
    ctx: Context,
    private readonly options: TestShellOptions = {},
  ) {
    super(ctx)
    this.cwd = options.cwd ?? process.cwd()
  }

  protected launch(spec: ShellSpec): ShellLaunch {
    if (this.options.refuse) throw new Error(this.options.refuse)
    return { file: this.options.file ?? 'bash', args: ['-c', spec.command], fd3: this.options.fd3 }
  }
}

export async function testShell(options?: TestShellOptions): Promise<ShellService> {
  const { ctx } = await boot({
    plugins: [
      [
        {
          name: 'test-shell',
          apply: (ctx: Context, config: TestShellOptions) => {
            new TestShell(ctx, config)
          },
        },
        options ?? {},
      ],
    ],
  })
  return ctx.shell
}

/** Zombie children of this test process: what a spawner that forgot to wait would leave. */
export function ourZombies(): string[] {
  const lines = execFileSync('ps', ['-o', 'pid=,stat=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n')
  return lines.map((line) => line.trim()).filter((line) => /\sZ/.test(line))
}

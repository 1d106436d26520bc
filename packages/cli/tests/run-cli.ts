import { spawn, type SpawnOptionsWithStdioTuple, type StdioNull, type StdioPipe } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const bin = fileURLToPath(new URL('../lib/bin.js', import.meta.url))

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the real built `dshkit` as a child process, killed after 15 s so a hang fails the test instead
 * of outliving it. `shell` runs first in `sh` (e.g. `ulimit -f 16`), which then execs dshkit.
 */
export function dshkit(args: string[], options: { cwd?: string; shell?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const spawnOptions: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe> = {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 15_000,
    }
    const child = options.shell
      ? spawn('sh', ['-c', `${options.shell}; exec "$0" "$@"`, process.execPath, bin, ...args], spawnOptions)
      : spawn(process.execPath, [bin, ...args], spawnOptions)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    // Said in what the test sees: an empty stdout from a run killed on a loaded machine is not the run's own failure.
    child.on('close', (code, signal) =>
      resolve({ code, stdout, stderr: signal && child.killed ? `${stderr}\n[run-cli: dshkit was killed (${signal}) after 15 s]` : stderr }),
    )
  })
}

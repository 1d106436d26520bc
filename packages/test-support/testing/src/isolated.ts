import { execFile } from 'node:child_process'

export interface IsolatedOptions {
  /** Where the child runs: a package directory, so it imports that package's built lib by name. */
  cwd: string
  /** Killed (SIGKILL) after this long, and the promise rejects: default 15 s. */
  timeoutMs?: number
}

/**
 * Runs ESM `code` in a child node and resolves with what it printed. Work that cannot be interrupted
 * in-process (a runaway regex) runs here, so a test that might hang fails instead of hanging.
 */
export function runIsolated(code: string, { cwd, timeoutMs = 15_000 }: IsolatedOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', code],
      { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        if (error?.killed) reject(new Error(`still running after ${timeoutMs} ms (killed): the code stalled the process`))
        else if (error) reject(new Error(`child failed: ${stderr.slice(0, 2000)}`))
        else resolve(stdout.trim())
      },
    )
  })
}

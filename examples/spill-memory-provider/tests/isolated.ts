import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const packageDir = fileURLToPath(new URL('..', import.meta.url))

/**
 * Runs ESM `code` in a child node (in this package's directory, so it imports the built lib by
 * package name) and resolves with what it printed. A runaway regex cannot be interrupted in-process,
 * so a test that might hang runs here, killed after `timeoutMs`, and fails instead of hanging.
 */
export function runIsolated(code: string, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error?.killed) reject(new Error(`still running after ${timeoutMs} ms (killed): the pattern stalled the process`))
      else if (error) reject(new Error(`child failed: ${stderr.slice(0, 2000)}`))
      else resolve(stdout.trim())
    })
  })
}

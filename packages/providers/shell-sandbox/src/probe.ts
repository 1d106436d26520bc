import { spawn } from 'node:child_process'
import type { Writable } from 'node:stream'
import { launchArgs } from './args.js'
import { nulTerminated } from './bytes.js'
import { findProgram } from './program.js'

const PROBE_TIMEOUT_MS = 10_000

const notFound = (bwrapPath: string) => `bubblewrap was not found at "${bwrapPath}"; install it (as root: apt-get install -y bubblewrap) or set bwrapPath`

/**
 * The bubblewrap to run every command with: found once on the start's PATH and run by its absolute path
 * (so the trial run and every launch are the same binary, whatever PATH a command sets), then tried once.
 */
export async function findBubblewrap(bwrapPath: string, flags: string[], shell: string): Promise<{ path: string } | { failure: string }> {
  const path = findProgram(bwrapPath)
  if (!path) return { failure: notFound(bwrapPath) }
  const failure = await probeBubblewrap(path, flags, shell)
  return failure ? { failure } : { path }
}

/**
 * Runs `bwrap --args 3 -- <shell> -c true` once, the flags on fd 3 as for every command: a missing
 * binary, user namespaces turned off, a root that cannot be mounted or a missing shell all show
 * here, as one line, before any command is taken.
 */
export function probeBubblewrap(bwrapPath: string, flags: string[], shell: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(bwrapPath, launchArgs(shell, 'true'), { env: {}, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], timeout: PROBE_TIMEOUT_MS })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const fd3 = child.stdio[3] as Writable
    fd3.on('error', () => {})
    fd3.end(nulTerminated(flags))
    child.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return resolve(notFound(bwrapPath))
      if (code === 'EACCES') return resolve(`"${bwrapPath}" cannot be executed (permission denied)`)
      resolve(`"${bwrapPath}" could not be started: ${error.message}`)
    })
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(undefined)
      if (child.pid === undefined) return // it never started: the 'error' handler answers
      if (signal) return resolve(`"${bwrapPath}" did not finish a trial run within ${PROBE_TIMEOUT_MS} ms`)
      const said = stderr.trim().split('\n').filter(Boolean).at(-1)
      resolve(`a trial run of "${bwrapPath}" failed${said ? `: ${said}` : ` with exit code ${String(code)}`}${hint(said)}`)
    })
  })
}

function hint(said: string | undefined) {
  if (!said) return ''
  if (/namespace|Operation not permitted|setting up uid map|Permission denied/i.test(said)) {
    return ' (user namespaces may be disabled: check sysctl kernel.unprivileged_userns_clone / user.max_user_namespaces, or run as root)'
  }
  return ''
}

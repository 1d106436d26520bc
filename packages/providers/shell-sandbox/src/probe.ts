import { execFile } from 'node:child_process'

const PROBE_TIMEOUT_MS = 10_000

/**
 * Runs `bwrap <flags> -- <shell> -c true` once: a missing binary, user namespaces turned off, a root
 * that cannot be mounted or a missing shell all show here, as one line, before any command is taken.
 */
export function probeBubblewrap(bwrapPath: string, flags: string[], shell: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(bwrapPath, [...flags, '--', shell, '-c', 'true'], { timeout: PROBE_TIMEOUT_MS, env: {} }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined)
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return resolve(`bubblewrap was not found at "${bwrapPath}"; install it (apt-get install bubblewrap) or set bwrapPath`)
      if (code === 'EACCES') return resolve(`"${bwrapPath}" cannot be executed (permission denied)`)
      if (error.killed) return resolve(`"${bwrapPath}" did not finish a trial run within ${PROBE_TIMEOUT_MS} ms`)
      const said = String(stderr).trim().split('\n').filter(Boolean).at(-1)
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

import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commandPattern, parseCommandLine, programName } from '../../src/index.js'

const DENY = [commandPattern('rm'), commandPattern('rm *')]

/** What the judge says about a line: allowed (no command opaque, none matching the deny rules), and the programs it listed. */
export function judge(line: string): { allowed: boolean; listed: Set<string> } {
  const parsed = parseCommandLine(line)
  const listed = new Set<string>()
  if (!parsed.ok) return { allowed: false, listed }
  for (const command of parsed.commands) {
    if (command.opaque || DENY.some((rule) => rule.match(command) !== 'no')) return { allowed: false, listed }
    for (const words of [command.argv, ...command.wrappers]) if (words[0]) listed.add(programName(words[0].value))
  }
  return { allowed: true, listed }
}

/** One program bash started: the file it ran and its argv[0]. */
export interface Executed {
  file: string
  argv0: string
}

const unshared = spawnSync('unshare', ['-n', 'true']).status === 0
const EXECVE = /^\d+\s+execve\("((?:[^"\\]|\\.)*)", \["((?:[^"\\]|\\.)*)"/

/**
 * Runs a line as `bash -c` under `strace -f -e trace=execve` in a throwaway folder holding a
 * `victim` file, without network (`unshare -n`, when it can), killing the whole tree after
 * `timeoutMs`. Resolves with every program run after bash itself, and whether victim survived.
 */
export function traced(line: string, timeoutMs = 5000): Promise<{ executed: Executed[]; victimLeft: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'dshkit-fuzz-'))
  writeFileSync(join(dir, 'victim'), 'x')
  const log = join(dir, '.trace')
  const strace = ['strace', '-f', '-qq', '-e', 'trace=execve', '-e', 'signal=none', '-o', log, 'bash', '-c', line]
  const [file, ...args] = unshared ? ['unshare', '-n', ...strace] : strace
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: dir, detached: true, stdio: 'ignore', env: { PATH: '/usr/bin:/bin', HOME: dir, LANG: 'C' } })
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
    }
    const timer = setTimeout(kill, timeoutMs)
    child.on('error', reject)
    child.on('close', () => {
      clearTimeout(timer)
      // Anything the line left behind in its group (`sleep &`, a coproc) goes too.
      kill()
      try {
        const runs = readFileSync(log, 'utf8')
          .split('\n')
          .filter((entry) => / = 0$/.test(entry))
          .map((entry) => EXECVE.exec(entry))
          .filter((m): m is RegExpExecArray => !!m)
          .map((m) => ({ file: m[1], argv0: m[2] }))
        resolve({ executed: runs.slice(1), victimLeft: existsSync(join(dir, 'victim')) })
      } catch (error) {
        reject(error)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}

/** Whether a program that ran is one the judge listed (by the file's name or argv[0]'s). */
export const listedRun = (run: Executed, listed: Set<string>) => listed.has(programName(run.file)) || listed.has(programName(run.argv0))
export const isDenied = (run: Executed) => programName(run.file) === 'rm' || programName(run.argv0) === 'rm'

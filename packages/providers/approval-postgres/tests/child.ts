import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { onCleanup } from '@dshkit/testing'
import { until } from './helpers.js'

const fixture = fileURLToPath(new URL('./fixtures/asker.ts', import.meta.url))
const repo = fileURLToPath(new URL('../../../..', import.meta.url))

/** A worker process (tsx) that asks once; `out` is what it printed. */
export function asker(url: string, schema: string, name: string, leaseMs: number) {
  const proc = spawn(process.execPath, ['--import', 'tsx', fixture, url, schema, name, String(leaseMs)], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  proc.stdout.on('data', (chunk) => void (out += chunk))
  proc.stderr.on('data', (chunk) => void (err += chunk))
  const exited = new Promise((resolve) => proc.on('exit', resolve))
  onCleanup(() => proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL'))
  return {
    proc,
    exited,
    asked: () => until(() => /ASKED (\S+)/.exec(out)?.[1], `the child's ask (stderr: ${err})`, 20_000),
    result: () => until(() => /RESULT (.+)/.exec(out)?.[1], `the child's result (stderr: ${err})`, 20_000).then((json) => JSON.parse(json)),
  }
}

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { hangMidCallScript } from '@dshkit/testing'

export { exited } from '@dshkit/testing'

const here = fileURLToPath(new URL('.', import.meta.url))
const require = createRequire(import.meta.url)
const built = (relative: string) => {
  const path = join(here, relative)
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm build\` before these tests (the child process imports built packages)`)
  return JSON.stringify(pathToFileURL(path).href)
}

/**
 * A worker as a real separate process: cordis + tools + this store + agent-loop. Modes:
 * `crash` runs one call, then hangs in a second one; `open` opens and holds the session (or prints
 * the refusal's code); `many` writes `count` events to each of `sessions` sessions at once; `churn` appends
 * to `sessions` sessions for `ms`; `pause` stops itself (SIGSTOP) between a call's durable tool/call and its body.
 */
export async function childScript(dir: string) {
  const script = join(dir, 'worker.mjs')
  await writeFile(
    script,
    `
import { Context } from ${JSON.stringify(pathToFileURL(require.resolve('cordis')).href)}
import { z } from ${JSON.stringify(pathToFileURL(require.resolve('zod')).href)}
import Tools from ${built('../../../core/tools/lib/index.js')}
import AgentLoop from ${built('../../../core/agent-loop/lib/index.js')}
import CheckpointPolicy from ${built('../../../policies/session-checkpoint-policy/lib/index.js')}
import SessionStorePostgres, { PostgresSessionStore } from ${built('../lib/index.js')}
import { appendFileSync } from 'node:fs'

const [mode, json] = process.argv.slice(2)
const options = JSON.parse(json)
const open = async (sessionId) => {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const fiber = await ctx.plugin(SessionStorePostgres, { ...options.config, sessionId })
  return { ctx, fiber }
}
if (mode === 'open') {
  try {
    await open(options.sessionId)
    process.stdout.write('READY\\n')
    setInterval(() => {}, 1000)
  } catch (error) {
    process.stdout.write((error.code ?? error.message) + '\\n')
    process.exit(3)
  }
} else if (mode === 'many') {
  // The store alone (no cordis Context per session): 20 of these start at once on 2 cores.
  const ids = Array.from({ length: options.sessions }, (_, i) => options.prefix + i)
  const stores = ids.map((sessionId) => new PostgresSessionStore({ ...options.config, sessionId }))
  await Promise.all(stores.map((store) => store.load()))
  const time = new Date().toISOString()
  await Promise.all(stores.map(async (store) => {
    for (let i = 0; i < options.count; i++) {
      await store.append({ type: 'tool/call', callId: 'c' + i, name: 'n', arguments: i, time })
      await store.append({ type: 'tool/result', callId: 'c' + i, isError: false, content: [], time })
    }
  }))
  await Promise.all(stores.map((store) => store.close()))
  process.stdout.write('DONE\\n')
  process.exit(0)
} else if (mode === 'churn') {
  // Each session appends as fast as its commits return for options.ms, while the heartbeat renews them all.
  const ids = Array.from({ length: options.sessions }, (_, i) => options.prefix + i)
  const stores = ids.map((sessionId) => new PostgresSessionStore({ ...options.config, sessionId }))
  await Promise.all(stores.map((store) => store.load()))
  const time = new Date().toISOString()
  const until = Date.now() + options.ms
  const failures = []
  let appended = 0
  await Promise.all(stores.map(async (store) => {
    for (let i = 0; Date.now() < until; i++) {
      try {
        await store.append({ type: 'context/added', source: 'churn', content: [], time })
        appended++
        // Sessions of a real worker append at unrelated moments: each batch holds them in another order.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 4))
      } catch (error) {
        failures.push(error.code ?? 'error', error.message)
        return
      }
    }
  }))
  await Promise.all(stores.map((store) => store.close()))
  process.stdout.write(JSON.stringify({ appended, failures }) + '\\n')
  process.exit(0)
} else if (mode === 'pause') {
  // Stops itself (SIGSTOP) once the call's tool/call is durable, before its body: the parent lets the lease run out.
  const { ctx } = await open(options.sessionId)
  await ctx.plugin(CheckpointPolicy)
  await ctx.plugin({
    name: 'pause-tools',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register({ name: 'effect', description: 'appends to a file', parameters: z.object({}), execute: () => (appendFileSync(options.effects, 'ran\\n'), 'ran') })
      ctx.on('tools/execute', (exec, next) => {
        process.stdout.write('ACKED\\n')
        process.kill(process.pid, 'SIGSTOP')
        return next()
      }, { prepend: true })
    },
  })
  await ctx.plugin(AgentLoop)
  const { results } = await ctx.loop.executeToolCalls([{ callId: 'paused', name: 'effect', arguments: {} }])
  process.stdout.write(JSON.stringify(results[0]) + '\\n')
  process.exit(0)
} else {
  const { ctx } = await open(options.sessionId)
  ${hangMidCallScript}}
`,
  )
  return script
}

/** Spawns a worker; resolves with it and what it printed first (READY, DONE or an error code); rejects with its stderr if it dies silently. */
export function spawnWorker(script: string, mode: string, options: unknown): Promise<{ child: ChildProcess; said: string }> {
  const child = spawn(process.execPath, [script, mode, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`worker said nothing in 200s: ${stderr}`))
    }, 200_000)
    child.stderr!.on('data', (chunk) => {
      stderr += chunk
    })
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      const line = stdout.indexOf('\n')
      if (line === -1) return
      clearTimeout(timer)
      resolve({ child, said: stdout.slice(0, line) })
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`worker exited (${code ?? signal}) without a word: ${stderr}`))
    })
  })
}

import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

/** Runs tsc on a project; resolves with its exit code and output (tsc prints errors on stdout). */
function typecheck(project: string) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { cwd: root }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr })
    })
  })
}

// tsc is slow on a loaded machine: a generous timeout, no timing assertion.
test('the tests type-check: config typos are compile errors, a preset nests DshBase.Config (tests/types/config-input.ts)', async () => {
  const { code, output } = await typecheck('tsconfig.test.json')
  expect(output).toBe('')
  expect(code).toBe(0)
}, 240_000)

test('importing only @dshkit/dsh-base types ctx.loop, ctx.session, ctx.tools, ctx.fs, ctx.spill, ctx.approval, ctx.shell, ctx.jobs (built lib, skipLibCheck off)', async () => {
  const { code, output } = await typecheck('tests/types/only-dsh-base/tsconfig.json')
  expect(output).toBe('')
  expect(code).toBe(0)
}, 240_000)

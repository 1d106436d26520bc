import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import ToolShell from '@dshkit/tool-shell'
import { boot, cleanup, textOf } from '@dshkit/testing'
import ShellSandbox from '../src/index.js'
import { makeTree } from './helpers.js'

afterEach(cleanup)

test('the shell tool tells the model which changes were refused and why, and which landed', async () => {
  const { root } = await makeTree()
  const { call } = await boot({
    plugins: [
      [ShellSandbox, { roots: [root], readOnlyRoots: [join(root, 'ro')] }],
      [ToolShell, {}],
    ],
  })
  const result = await call('shell', { command: 'echo ok > ok.txt; echo bad > ro/doc.txt; echo T > .env.new' })
  expect(result.isError).toBe(false)
  const text = textOf(result)
  expect(text).toContain(`changes landed (1): created ${join(root, 'ok.txt')}`)
  expect(text).toContain('changes refused (2), not applied')
  expect(text).toContain(`- modified ${join(root, 'ro/doc.txt')}: sandbox denied write to`)
  expect(text).toMatch(/- created .*\.env\.new: sandbox denied write to .*deny rule/)
  expect(readFileSync(join(root, 'ok.txt'), 'utf8')).toBe('ok\n')
  expect(readFileSync(join(root, 'ro/doc.txt'), 'utf8')).toBe('read-only doc')
})

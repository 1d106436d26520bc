import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { DEFAULT_DENY, Sandbox, WorkspaceConfig, withDeny, writableGrants } from '../src/index.js'

afterEach(cleanup)

test('the workspace defaults to the current folder and the .env and .git globs, and names a bad entry', () => {
  expect(WorkspaceConfig.parse(undefined)).toEqual({ roots: [process.cwd()], readOnlyRoots: [], deny: DEFAULT_DENY })
  expect(() => WorkspaceConfig.parse({ roots: [''] })).toThrow('roots entries must be non-empty paths')
  expect(() => WorkspaceConfig.parse({ readOnlyRoots: ['/a\0b'] })).toThrow('readOnlyRoots entries must not contain NUL bytes')
  expect(() => WorkspaceConfig.parse({ deny: [''] })).toThrow('deny globs must be non-empty')
})

test('one Sandbox judges outside, read-only and denied paths, and hands the same rules to a shell provider', async () => {
  const root = await tempDir('dshkit-workspace-')
  await mkdir(join(root, 'vendor'))
  await writeFile(join(root, '.env'), 'TOKEN=1')
  const sandbox = new Sandbox(withDeny(WorkspaceConfig.parse({ roots: [root], readOnlyRoots: [join(root, 'vendor')] }), ['**/*.pem']))
  expect(await sandbox.judgeDeclared('ok.txt', join(root, 'ok.txt'), 'write')).toBeUndefined()
  expect(await sandbox.judgeDeclared('.env', join(root, '.env'), 'read')).toBe(
    `sandbox denied read of ".env" (resolves to ${root}/.env): it matches deny rule "**/.env*"`,
  )
  expect(await sandbox.judgeDeclared('vendor/x', join(root, 'vendor/x'), 'write')).toContain(`it is under the read-only root ${root}/vendor`)
  expect(await sandbox.judgeDeclared('/etc/passwd', '/etc/passwd', 'read')).toContain('it is outside the sandbox roots')
  expect(sandbox.deniedBy(join(root, 'keys/a.pem'))).toBe('**/*.pem')
  expect(sandbox.resolvedRoots()).toEqual({ roots: [root], readOnlyRoots: [join(root, 'vendor')] })
})

test('a grants file the tools could write is named, one in the root’s own .dshkit folder is not', async () => {
  const root = await tempDir('dshkit-workspace-grants-')
  const workspace = { roots: [root], readOnlyRoots: [] }
  expect(writableGrants(join(root, 'grants.json'), workspace)).toContain(`lies in the sandbox root ${root}`)
  expect(writableGrants(join(root, 'sub/.dshkit/grants.json'), workspace)).toContain('lies in the sandbox root')
  expect(writableGrants(join(root, '.dshkit/grants.json'), workspace)).toBeUndefined()
})

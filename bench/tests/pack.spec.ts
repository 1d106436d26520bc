import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const run = promisify(execFile)
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..')

// Packs every publishable package, installs the tarballs in a fresh project outside the
// workspace (npm, registry for third-party deps), imports them as ESM and type-checks them.
// Needs `pnpm build` first, which `pnpm test` does.
test('every publishable package packs into a tarball a fresh project can install, import and type-check', async () => {
  const { stderr } = await run(process.execPath, [join(repo, 'scripts/check-pack.mjs')], { cwd: repo, maxBuffer: 16 * 1024 * 1024 }).catch((error) => {
    throw new Error(`scripts/check-pack.mjs failed:\n${error.stderr || error.message}`)
  })
  expect(stderr).toMatch(/check-pack: ok: \d+ tarballs install outside the workspace, import as ESM and type-check/)
}, 420_000)

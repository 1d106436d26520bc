import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { SECRET } from './helpers.js'

afterEach(cleanup)

const source = fileURLToPath(new URL('../src/index.ts', import.meta.url))
const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url))
const NOBODY = 65534

// Run as a normal user, the host walk cannot list a folder its owner made unreadable, and the
// command (the same user inside) can make it readable again: such a folder must be hidden whole.
test.skipIf(process.getuid?.() !== 0)(
  'a folder the walk cannot read (chmod 000 by its owner) is hidden whole, not skipped',
  async () => {
    const base = await tempDir('dshkit-shell-sandbox-unreadable-')
    chmodSync(base, 0o755)
    const root = join(base, 'root')
    for (const dir of [root, join(root, 'locked'), join(root, 'open')]) mkdirSync(dir)
    writeFileSync(join(root, 'locked/.env'), SECRET)
    writeFileSync(join(root, 'open/a.txt'), '')
    for (const path of [root, join(root, 'locked'), join(root, 'locked/.env'), join(root, 'open'), join(root, 'open/a.txt')]) chownSync(path, NOBODY, NOBODY)
    chmodSync(join(root, 'locked'), 0)
    // Someone else's unreadable folder: unreadable inside too, so left alone (a mount there might not even be possible).
    mkdirSync(join(root, 'foreign'), { mode: 0o700 })
    const walk = `import(${JSON.stringify(source)}).then(({ findHidden, denyMatcher }) => console.log(JSON.stringify(findHidden({
    bases: [${JSON.stringify(root)}], absoluteGlobs: [], covers: denyMatcher(['**/.env*'], [${JSON.stringify(root)}]),
    deniedBy: () => undefined, limit: 1000, maxMounts: 256 }))))`
    // As nobody, the owner of the tree: no capability lets the walk read past the mode.
    const out = execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', tsx, '-e', walk], { encoding: 'utf8', cwd: base })
    expect(JSON.parse(out)).toEqual({ dirs: [join(root, 'locked')], files: [] })
  },
  30_000,
)

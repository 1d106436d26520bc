#!/usr/bin/env node
// Packs every publishable package with `pnpm pack`, installs the tarballs into a fresh project
// outside the workspace, imports each one as ESM, type-checks a file importing them all, and boots
// dsh-base from the installed tarballs; then builds examples/third-party-preset from its source against
// the tarballs with skipLibCheck: false and runs a call through it. Beside that, in parallel, the install a user
// does (check-user-install.mjs: `pnpm add` and `npm install` of one adapter + dsh-base). Exits non-zero with one line per problem.
//
//   node scripts/check-pack.mjs [--keep]     (needs `pnpm build` first)
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { checkUserInstalls, userTsconfig } from './check-user-install.mjs'

const run = promisify(execFile)
const repo = dirname(dirname(fileURLToPath(import.meta.url)))
const keep = process.argv.includes('--keep')
const started = performance.now()
// Each line says when it happened: the check runs in the suite, and its time is kept in bounds.
const log = (message) => process.stderr.write(`check-pack: ${message} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`)

class CheckError extends Error {}

/** Runs a command; on failure throws a CheckError with what ran and the end of its output. */
async function sh(what, file, args, options = {}) {
  try {
    return await run(file, args, { maxBuffer: 64 * 1024 * 1024, ...options })
  } catch (error) {
    const output = `${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n')
    throw new CheckError(`${what} failed (${file} ${args.join(' ')}):\n${output || error.message}`)
  }
}

/** Publishable packages: packages/*\/*, packages/cli, bundles/*, examples/* — every one not private. */
async function publishable() {
  const dirs = []
  const children = async (dir) =>
    (await readdir(join(repo, dir), { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name))
  for (const group of await children('packages')) {
    if (existsSync(join(repo, group, 'package.json'))) dirs.push(group)
    else dirs.push(...(await children(group)))
  }
  dirs.push(...(await children('bundles')), ...(await children('examples')))
  const found = []
  for (const dir of dirs) {
    const file = join(repo, dir, 'package.json')
    if (!existsSync(file)) continue
    const manifest = JSON.parse(await readFile(file, 'utf8'))
    if (manifest.private) continue
    found.push({ dir, manifest, folder: dir.split('/').pop() })
  }
  return found
}

function checkBuilt(packages) {
  const missing = packages.filter(({ dir, manifest }) => {
    const entry = manifest.exports?.['.']?.default ?? manifest.main ?? './lib/index.js'
    return !existsSync(join(repo, dir, entry))
  })
  if (missing.length) {
    throw new CheckError(`not built: ${missing.map((p) => p.manifest.name).join(', ')}; run \`pnpm build\` first`)
  }
}

async function pack(packages, destination) {
  const tarballs = []
  // A few at a time: pnpm pack is quick, and the cli's prepack copies the demo in.
  for (let i = 0; i < packages.length; i += 6) {
    tarballs.push(
      ...(await Promise.all(
        packages.slice(i, i + 6).map(async ({ dir, manifest }) => {
          const { stdout } = await sh(`pnpm pack of ${manifest.name}`, 'pnpm', ['pack', '--pack-destination', destination, '--json'], { cwd: join(repo, dir) })
          const filename = JSON.parse(stdout).filename
          if (!filename || !existsSync(filename)) throw new CheckError(`pnpm pack of ${manifest.name} reported no tarball`)
          return filename
        }),
      )),
    )
  }
  return tarballs
}

/** The tarball's manifest must not leak workspace protocols (npm cannot install them). */
async function checkManifests(tarballs) {
  for (const tarball of tarballs) {
    const { stdout } = await sh(`reading ${tarball}`, 'tar', ['-xzOf', tarball, 'package/package.json'])
    const manifest = JSON.parse(stdout)
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (String(range).startsWith('workspace:')) throw new CheckError(`${manifest.name}: ${field}.${name} is still "${range}" in the tarball`)
      }
    }
  }
}

/** The peers a user installs beside a tarball (the adapters' frameworks), named as a user names them. */
async function userPeers(tarballs) {
  const peers = new Map()
  for (const tarball of tarballs) {
    const { stdout } = await sh(`reading ${tarball}`, 'tar', ['-xzOf', tarball, 'package/package.json'])
    for (const [name, range] of Object.entries(JSON.parse(stdout).peerDependencies ?? {})) {
      if (!name.startsWith('@dshkit/') && name !== 'cordis') peers.set(name, range)
    }
  }
  return [...peers].map(([name, range]) => `${name}@${range}`)
}

function esmCheck(packages) {
  return `import { Context } from 'cordis'
const packages = ${JSON.stringify(packages.map(({ manifest, folder }) => ({ name: manifest.name, folder, bin: manifest.bin ?? null })))}
const problems = []
for (const { name, folder } of packages) {
  let mod
  try {
    mod = await import(name)
  } catch (error) {
    problems.push(\`\${name}: import failed: \${error.message.split('\\n')[0]}\`)
    continue
  }
  if (!Object.keys(mod).length) problems.push(\`\${name}: imports, but exports nothing\`)
  const plugin = mod.default
  if (plugin === undefined) continue // a library or seam (e.g. @dshkit/fs, @dshkit/hook-protocol)
  if (typeof plugin !== 'function' && typeof plugin?.apply !== 'function') {
    problems.push(\`\${name}: the default export is not a cordis plugin (a function, a class, or an object with apply)\`)
    continue
  }
  // First-party plugins are named after their folder; a third-party example may use its package name.
  if (plugin.name !== folder && plugin.name !== name.replace(/^@[^/]+\\//, '')) problems.push(\`\${name}: the plugin's name is \${JSON.stringify(plugin.name)}, expected \${JSON.stringify(folder)}\`)
  if (mod.name !== undefined && mod.name !== plugin.name) problems.push(\`\${name}: export name \${JSON.stringify(mod.name)} differs from the default export's name\`)
  if (plugin.Config !== undefined && typeof plugin.Config?.['~standard']?.validate !== 'function') {
    problems.push(\`\${name}: Config is not a Standard Schema\`)
  }
  if (plugin.inject !== undefined && !Array.isArray(plugin.inject) && typeof plugin.inject !== 'object') {
    problems.push(\`\${name}: inject is neither a list nor an object\`)
  }
}
// The composition must boot from the installed tarballs and run a real call.
try {
  const { default: DshBase } = await import('@dshkit/dsh-base')
  const ctx = new Context()
  await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [process.cwd()] }, 'user-approval': { responder: 'headless' } })
  for (let i = 0; i < 200 && !ctx.get('loop'); i++) await new Promise((resolve) => setImmediate(resolve))
  const result = await ctx.tools.execute({ callId: 'pack-check', name: 'fs_read', arguments: { path: 'package.json' } })
  if (result.isError) problems.push(\`@dshkit/dsh-base: fs_read through the installed tarballs failed: \${result.error.code} \${result.error.message}\`)
  else if (!JSON.stringify(result.content).includes('pack-check-project')) problems.push('@dshkit/dsh-base: fs_read returned something else than package.json')
} catch (error) {
  problems.push(\`@dshkit/dsh-base: booting it from the tarballs failed: \${error?.message?.split('\\n')[0] ?? error}\`)
}
if (problems.length) {
  console.log(problems.join('\\n'))
  process.exit(1)
}
console.log(\`imported \${packages.length} packages\`)
process.exit(0)
`
}

function typeCheck(packages) {
  const lines = packages.map(({ manifest }, i) => `import * as p${i} from '${manifest.name}'`)
  return `${lines.join('\n')}
import { Context } from 'cordis'
import { z } from 'zod'
import { defineTool, type ToolExecutionResult } from '@dshkit/tools'
import type {} from '@dshkit/agent-loop'

// Every module's types resolve, and the service augmentations reach cordis's Context.
export const modules = [${packages.map((_, i) => `p${i}`).join(', ')}]
export async function smoke(ctx: Context): Promise<ToolExecutionResult> {
  ctx.tools.register(defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text }))
  const batch = await ctx.loop.executeToolCalls([{ callId: 'c1', name: 'echo', arguments: { text: 'hi' } }])
  return batch.results[0]
}
`
}

/** The third-party example, built from its source against the installed tarballs only. */
const EXAMPLE = 'examples/third-party-preset'

/**
 * Copies the example's src/ next to the installed tarballs, compiles it with `skipLibCheck: false`
 * (so every .d.ts it reaches, ours and our dependencies', is checked), then boots the compiled preset
 * and runs one call through it.
 */
async function buildExample(project) {
  const dir = join(project, 'third-party-preset')
  log(`building ${EXAMPLE} from the tarballs with skipLibCheck: false`)
  await cp(join(repo, EXAMPLE, 'src'), join(dir, 'src'), { recursive: true })
  // ES2023 only: a preset must not need the DOM types to compile.
  await writeFile(
    join(dir, 'tsconfig.json'),
    userTsconfig({ declaration: true, skipLibCheck: false, lib: ['ES2023'], outDir: 'lib', rootDir: 'src' }, { include: ['src'] }),
  )
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
  await sh(`tsc (skipLibCheck: false) on ${EXAMPLE}`, process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir })
  await writeFile(
    join(dir, 'smoke.mjs'),
    `import { writeFile } from 'node:fs/promises'
import { Context } from 'cordis'
import Preset from './lib/index.js'

await writeFile('words.txt', 'one two three\\nfour\\n')
const ctx = new Context()
await ctx.plugin(Preset, { 'dsh-base': { 'fs-sandbox': { roots: [process.cwd()] } }, 'protect-paths': { deny: ['lib'] } })
const counted = await ctx.tools.execute({ callId: 's1', name: 'count_words', arguments: { path: 'words.txt' } })
const denied = await ctx.tools.execute({ callId: 's2', name: 'fs_read', arguments: { path: 'lib/index.js' } })
const problems = []
if (counted.isError || counted.value.words !== 4) problems.push('count_words: ' + JSON.stringify(counted))
if (!denied.isError || denied.error.source !== 'protect-paths') problems.push('protect-paths did not deny: ' + JSON.stringify(denied))
console.log(problems.length ? problems.join('\\n') : 'the preset booted and ran count_words')
process.exit(problems.length ? 1 : 0)
`,
  )
  const smoke = await sh(`booting the compiled ${EXAMPLE}`, process.execPath, ['smoke.mjs'], { cwd: dir })
  log(smoke.stdout.trim())
}

/** Every tarball in one project: npm install, ESM import of each, a type-check of all, the example preset, the bins. */
async function checkEverything({ packages, files, project, typesNode, tsc }) {
  log(`installing them into a fresh project at ${project}`)
  const peers = await userPeers(files)
  // As docs/using-dshkit.md has npm users do: cordis' optional peer @cordisjs/plugin-loader@^1.0.0-rc.7 is in no registry,
  // the override gives it the 1.0.0-rc.0 dsh-base depends on, so npm installs with strict peer resolution, first time.
  const manifest = { name: 'pack-check-project', version: '1.0.0', private: true, type: 'module', overrides: { '@cordisjs/plugin-loader': '1.0.0-rc.0' } }
  await writeFile(join(project, 'package.json'), JSON.stringify(manifest, null, 2))
  await sh(
    'npm install of the tarballs (strict peers)',
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files, ...peers, `@types/node@${typesNode}`],
    {
      cwd: project,
    },
  )

  log('importing every package as ESM and booting dsh-base')
  await writeFile(join(project, 'check.mjs'), esmCheck(packages))
  const esm = await sh('the ESM import check', process.execPath, ['check.mjs'], { cwd: project }).catch((error) => {
    throw new CheckError(error.message)
  })
  log(esm.stdout.trim())

  log('type-checking a file that imports every package')
  await writeFile(join(project, 'check.ts'), typeCheck(packages))
  // DOM: the MCP SDK's typings (through @dshkit/mcp-client / mcp-server) name fetch types such as HeadersInit.
  await writeFile(join(project, 'tsconfig.json'), userTsconfig({ noEmit: true, skipLibCheck: false }, { files: ['check.ts'] }))
  await sh('tsc --noEmit on check.ts', process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project })

  await buildExample(project)

  for (const { manifest } of packages) {
    for (const [command] of Object.entries(manifest.bin ?? {})) {
      const bin = join(project, 'node_modules', '.bin', command)
      if (!existsSync(bin)) throw new CheckError(`${manifest.name}: its bin "${command}" was not installed`)
      await sh(`${command} --help from the installed tarball`, bin, ['--help'], { cwd: project })
    }
  }
}

async function main() {
  const packages = await publishable()
  if (!packages.length) throw new CheckError('found no publishable packages')
  checkBuilt(packages)
  const root = await mkdtemp(join(tmpdir(), 'dshkit-pack-check-'))
  if (!relative(repo, root).startsWith('..')) throw new CheckError(`the temp dir ${root} is inside the repository`)
  let ok = false
  try {
    const tarballs = join(root, 'tarballs')
    const project = join(root, 'project')
    await mkdir(tarballs)
    await mkdir(project)
    log(`packing ${packages.length} packages into ${tarballs}`)
    const files = await pack(packages, tarballs)
    await checkManifests(files)

    const rootManifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'))
    const typesNode = rootManifest.devDependencies?.['@types/node'] ?? '^20'
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
    // The two are independent and mostly wait on the registry and the disk: run them side by side.
    await Promise.all([
      checkEverything({ packages, files, project, typesNode, tsc }),
      checkUserInstalls({ sh, log, fail: (message) => new CheckError(message), root, files, typesNode, tsc }),
    ])
    ok = true
    log(
      `ok: ${packages.length} tarballs install outside the workspace, import as ESM and type-check; a user's pnpm add and npm install of one adapter + dsh-base run a call`,
    )
  } finally {
    if (keep || !ok) log(`kept ${root} for inspection`)
    else await rm(root, { recursive: true, force: true })
  }
}

main().catch((error) => {
  process.stderr.write(`check-pack: FAILED: ${error instanceof CheckError ? error.message : (error?.stack ?? error)}\n`)
  process.exit(1)
})

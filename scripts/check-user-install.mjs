// The install a user does, from the packed tarballs, as docs/using-dshkit.md tells it: in two fresh projects, `pnpm add`
// and `npm install` of one adapter (@dshkit/ai-sdk) + @dshkit/dsh-base + the framework, with overrides pointing every
// other @dshkit package at its tarball (they are in no registry yet). Strict: no --legacy-peer-deps, no approved builds.
// Then one real call through the adapter, and (pnpm's strict node_modules) a preset built with `declaration: true`.
import { readFile, writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'

const ADAPTER = '@dshkit/ai-sdk'
const BASE = '@dshkit/dsh-base'

/** name → tarball path, read from each tarball's manifest. */
async function tarballNames(sh, files) {
  const names = new Map()
  for (const file of files) {
    const { stdout } = await sh(`reading ${file}`, 'tar', ['-xzOf', file, 'package/package.json'])
    names.set(JSON.parse(stdout).name, file)
  }
  return names
}

const RUN = `import { Context } from 'cordis'
import DshBase from '${BASE}'
import { dshkitTools } from '${ADAPTER}'

const ctx = new Context()
await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [process.cwd()] }, 'user-approval': { responder: 'headless' } })
for (let i = 0; i < 200 && !ctx.get('loop'); i++) await new Promise((resolve) => setImmediate(resolve))
const tools = dshkitTools(ctx)
const output = await tools.fs_read.execute({ path: 'package.json' }, { toolCallId: 'c1', messages: [], abortSignal: new AbortController().signal })
const ok = JSON.stringify(output.content).includes('user-project')
console.log(ok ? 'fs_read ran through ${ADAPTER}' : 'fs_read returned something else: ' + JSON.stringify(output))
process.exit(ok ? 0 : 1)
`

// A preset whose exported types are inferred from dsh-base's: every type they name must be reachable through what it depends on.
const PRESET = `import type { Context } from 'cordis'
import { z } from 'zod'
import DshBase from '${BASE}'

export const name = 'user-preset'
export const Config = z.object({ base: DshBase.Config.prefault({}) }).prefault({})
export const apply = (ctx: Context, config: z.output<typeof Config>) => ctx.plugin(DshBase, config.base)
export default { name, Config, apply }
`

/** A tsconfig.json as a user's project has it (ESM, bundler resolution, strict, node types) with `options` and `rest` on top. */
export function userTsconfig(options, rest) {
  const compilerOptions = { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', strict: true, types: ['node'], lib: ['ES2023', 'DOM'], ...options }
  return JSON.stringify({ compilerOptions, ...rest }, null, 2)
}

// TS2742 is an error in the preset's own declaration emit; the libraries' .d.ts are checked by the full type-check.
const TSCONFIG = userTsconfig({ declaration: true, skipLibCheck: true, outDir: 'lib', rootDir: 'src' }, { include: ['src'] })

/** What the user names on the command line, beside the two tarballs: the framework, cordis, zod, node's types. */
async function userArgs(sh, names, typesNode) {
  const { stdout } = await sh('reading the adapter', 'tar', ['-xzOf', names.get(ADAPTER), 'package/package.json'])
  const peers = JSON.parse(stdout).peerDependencies
  return [names.get(ADAPTER), names.get(BASE), `ai@${peers.ai}`, `cordis@${peers.cordis.replace(/^\^/, '')}`, 'zod@^4', `@types/node@${typesNode}`]
}

async function project(root, dir) {
  const path = join(root, dir)
  await mkdir(path)
  await writeFile(join(path, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, type: 'module' }, null, 2))
  return path
}

async function pnpmInstall(sh, fail, root, names, args) {
  const dir = await project(root, 'user-pnpm')
  // What the docs have the user write: pnpm-workspace.yaml's overrides, every @dshkit package → its tarball.
  const overrides = [...names].map(([name, file]) => `  '${name}': 'file:${file}'`)
  await writeFile(join(dir, 'pnpm-workspace.yaml'), `overrides:\n${overrides.join('\n')}\n`)
  await sh('pnpm add of one adapter + dsh-base (no approved builds)', 'pnpm', ['add', '--reporter=append-only', ...args], { cwd: dir })
  const workspace = await readFile(join(dir, 'pnpm-workspace.yaml'), 'utf8')
  if (/allowBuilds|onlyBuiltDependencies/.test(workspace)) throw fail(`pnpm wrote build approvals into the user's pnpm-workspace.yaml:\n${workspace}`)
  return dir
}

async function npmInstall(sh, root, names, args) {
  const dir = await project(root, 'user-npm')
  // npm refuses an override of a direct dependency: only the packages the user does not name; plus cordis' optional peer.
  const overrides = Object.fromEntries([...names].filter(([name]) => name !== ADAPTER && name !== BASE).map(([name, file]) => [name, `file:${file}`]))
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))
  manifest.overrides = { ...overrides, '@cordisjs/plugin-loader': '1.0.0-rc.0' }
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
  await sh('npm install of one adapter + dsh-base (strict peers)', 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...args], { cwd: dir })
  return dir
}

/** Both installs, in parallel, each then running one call; pnpm's project also builds the preset. */
export async function checkUserInstalls({ sh, log, fail, root, files, typesNode, tsc }) {
  const names = await tarballNames(sh, files)
  const args = await userArgs(sh, names, typesNode)
  const call = async (dir, how) => {
    await writeFile(join(dir, 'run.mjs'), RUN)
    const { stdout } = await sh(`one call through ${ADAPTER} (${how} project)`, process.execPath, ['run.mjs'], { cwd: dir })
    log(`${how}: ${stdout.trim()}`)
  }
  const preset = async (dir) => {
    await mkdir(join(dir, 'src'))
    await writeFile(join(dir, 'src', 'index.ts'), PRESET)
    await writeFile(join(dir, 'tsconfig.json'), TSCONFIG)
    await sh('tsc (declaration: true) on a preset depending on dsh-base only', process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir })
    log('pnpm: a preset built with declaration: true names only what it depends on')
  }
  await Promise.all([
    pnpmInstall(sh, fail, root, names, args).then((dir) => Promise.all([call(dir, 'pnpm'), preset(dir)])),
    npmInstall(sh, root, names, args).then((dir) => call(dir, 'npm')),
  ])
}

#!/usr/bin/env node
// The house rules CONTRIBUTING.md states, checked: a package depends only on its own floor or the
// floors below it, no source file runs past 350 lines, no function past 80. Exit 1 names each breach.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const repo = fileURLToPath(new URL('..', import.meta.url))
// Lowest first: a package may depend on its floor and the ones before it.
const FLOORS = ['lib', 'core', 'seams', 'shared', 'services', 'providers', 'policies', 'tools', 'adapters', 'test-support', 'bundles', 'cli', 'examples']
const MAX_FILE_LINES = 350
const MAX_FUNCTION_LINES = 80

const dirs = (dir) => readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory() && name !== 'node_modules')
const packageDirs = [
  ...dirs(join(repo, 'packages')).flatMap((floor) =>
    floor === 'cli' ? [['cli', 'packages/cli']] : dirs(join(repo, 'packages', floor)).map((name) => [floor, `packages/${floor}/${name}`]),
  ),
  ...dirs(join(repo, 'bundles')).map((name) => ['bundles', `bundles/${name}`]),
  ...dirs(join(repo, 'examples')).map((name) => ['examples', `examples/${name}`]),
].filter(([, dir]) => {
  try {
    return statSync(join(repo, dir, 'package.json')).isFile()
  } catch {
    return false
  }
})

const problems = []
const floorOf = new Map()
const manifests = packageDirs.map(([floor, dir]) => {
  if (!FLOORS.includes(floor)) problems.push(`${dir}: the folder packages/${floor} is no floor of CONTRIBUTING.md's table (${FLOORS.join(', ')})`)
  const manifest = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8'))
  floorOf.set(manifest.name, floor)
  return { floor, dir, manifest }
})
for (const { floor, dir, manifest } of manifests) {
  const used = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
  for (const name of used) {
    const theirs = floorOf.get(name)
    if (theirs && FLOORS.indexOf(theirs) > FLOORS.indexOf(floor))
      problems.push(`${dir} (floor ${floor}) depends on ${name} (floor ${theirs}, above it): move the shared part down a floor`)
  }
}

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
for (const { dir } of manifests) {
  let files = []
  try {
    files = sources(join(repo, dir, 'src'))
  } catch {}
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const where = relative(repo, file)
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (lines > MAX_FILE_LINES) problems.push(`${where}: ${lines} lines, over ${MAX_FILE_LINES}: split it by idea`)
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line
        const length = source.getLineAndCharacterOfPosition(node.end).line - start + 1
        const name = node.name?.getText(source) ?? '(a function)'
        if (length > MAX_FUNCTION_LINES) problems.push(`${where}:${start + 1}: ${name} is ${length} lines, over ${MAX_FUNCTION_LINES}: split it into steps`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
}

for (const problem of problems) process.stderr.write(`check-house: ${problem}\n`)
if (problems.length) process.exitCode = 1
else
  process.stdout.write(
    `check-house: ${manifests.length} packages on their floors, no source file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}\n`,
  )

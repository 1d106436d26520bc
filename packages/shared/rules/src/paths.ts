import nodePath from 'node:path'
import { isWithin, resolveRealPathSync, type FsService } from '@dshkit/fs'
import type { ToolDefinition, ToolExecution } from '@dshkit/tools'
import { argumentValue, type PathForm, type PathLookup } from './rules.js'

interface Place {
  cwd: string
  realCwd: string
  resolve(path: string): string
}

const noPaths: PathLookup = () => undefined

/**
 * For one call, which argument values are paths (those the tool's `fsAccess(args)` declares) and
 * where each really lands: resolved against the fs provider's cwd like the provider will, and with
 * every symlink followed. Synchronous, because deny rules are guards.
 */
export function pathArguments(definitions: ReadonlyMap<string, ToolDefinition>, currentFs: () => FsService | undefined) {
  return (exec: ToolExecution): PathLookup => {
    const def = definitions.get(exec.name)
    if (!def?.fsAccess) return noPaths
    const args = parsedArguments(def, exec.arguments)
    const declared = declaredPaths(def, args)
    if (!declared.size) return noPaths
    let place: Place | undefined
    const known = new Map<string, PathForm[] | undefined>()
    return (keys) => {
      const value = argumentValue(args, keys)
      if (typeof value !== 'string' || !declared.has(value)) return undefined
      if (!known.has(value)) known.set(value, formsOf(value, (place ??= placeOf(currentFs()))))
      return known.get(value)
    }
  }
}

/** What the body will receive: the arguments as the tool's schema parses them (defaults and transforms applied). */
function parsedArguments(def: ToolDefinition, raw: unknown): unknown {
  try {
    const outcome = def.parameters['~standard'].validate(raw)
    if (outcome instanceof Promise) {
      // An async schema cannot be awaited in a guard; the raw arguments already passed it.
      outcome.then(undefined, () => {})
      return raw
    }
    return outcome.issues ? raw : outcome.value
  } catch {
    return raw
  }
}

function declaredPaths(def: ToolDefinition, args: unknown): Set<string> {
  try {
    const declared: unknown = def.fsAccess!(args)
    if (!Array.isArray(declared)) return new Set()
    return new Set(declared.map((item) => item?.path).filter((path): path is string => typeof path === 'string'))
  } catch {
    // A tool whose footprint cannot be known gets plain argument matching (fs-sandbox denies such calls).
    return new Set()
  }
}

function placeOf(fs: FsService | undefined): Place {
  const cwd = fs?.cwd ?? process.cwd()
  let realCwd = cwd
  try {
    realCwd = resolveRealPathSync(cwd)
  } catch {
    // An unresolvable cwd: paths are judged relative to it as written.
  }
  const resolve = fs ? (path: string) => fs.resolve(path) : (path: string) => nodePath.resolve(cwd, path)
  return { cwd, realCwd, resolve }
}

/** The path as the provider opens it (`..`, `.`, `//` and a trailing `/` resolved lexically), and where its symlinks lead. */
function formsOf(value: string, place: Place): PathForm[] | undefined {
  // A NUL byte makes the provider refuse the call; the value is matched as plain text instead.
  if (value.includes('\0')) return undefined
  let lexical: string
  try {
    lexical = place.resolve(value)
  } catch {
    return undefined
  }
  const forms = [formOf(lexical, place.cwd)]
  try {
    const real = resolveRealPathSync(lexical)
    if (real !== lexical) forms.push(formOf(real, place.realCwd))
  } catch {
    // A symlink loop or an unreadable directory: the provider fails on it too, so the lexical path is what counts.
  }
  return forms
}

function formOf(absolute: string, cwd: string): PathForm {
  const slashed = (path: string) => path.split(nodePath.sep).join('/')
  if (!isWithin(absolute, cwd)) return { absolute: slashed(absolute) }
  return { absolute: slashed(absolute), relative: slashed(nodePath.relative(cwd, absolute)) || '.' }
}

/**
 * Where a shell redirection target lands: resolved against the call's `cwd` argument (itself
 * against the shell provider's cwd, else the fs provider's, as the shell tool does) like a path
 * argument, symlinks followed. Forms are relative to the fs cwd (the workspace), so `**\/.env*`
 * means the same as for fs tools.
 */
export function redirectTargets(currentFs: () => FsService | undefined, shellCwd: () => string | undefined = () => undefined) {
  return (target: string, cwd: string | undefined): PathForm[] | undefined => {
    const place = placeOf(currentFs())
    const base = nodePath.resolve(shellCwd() ?? place.cwd, cwd ?? '.')
    return formsOf(nodePath.resolve(base, target), place)
  }
}

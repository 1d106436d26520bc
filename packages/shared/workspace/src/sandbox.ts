import { lstatSync } from 'node:fs'
import nodePath from 'node:path'
import picomatch from 'picomatch'
import { FsError, isWithin, objectIdentity, resolveRealPath, type FsAccessKind } from '@dshkit/fs'

export interface SandboxRules {
  roots: string[]
  readOnlyRoots: string[]
  deny: string[]
}

interface DenyRule {
  glob: string
  absolute: boolean
  matches(path: string): boolean
}

/** The containment rules, with roots resolved to real paths once, judged the same way in both places. */
export class Sandbox {
  private roots: string[] = []
  private readOnlyRoots: string[] = []
  private readonly rules: DenyRule[]
  /** `dev:ino` of what the shell hid at its latest launch: denied wherever a command moved it since. */
  private moved: ReadonlySet<string> = new Set()
  /** Settles once the roots are resolved; until then every judgement waits. */
  readonly ready: Promise<void>

  constructor(rules: SandboxRules, base = process.cwd()) {
    this.rules = rules.deny.map((glob) => ({
      glob,
      absolute: nodePath.isAbsolute(glob),
      // `secrets/` (gitignore's spelling of a directory) would match nothing; as `secrets` it covers all below.
      matches: picomatch(glob.length > 1 ? glob.replace(/\/+$/, '') : glob, { dot: true }),
    }))
    const real = (list: string[]) => Promise.all(list.map((root) => resolveRealPath(nodePath.resolve(base, root))))
    this.ready = Promise.all([real(rules.roots), real(rules.readOnlyRoots)]).then(([roots, readOnly]) => {
      this.roots = roots
      this.readOnlyRoots = readOnly
    })
  }

  /**
   * Judges a path a tool declared: `abs` is it resolved against the fs cwd, and the real path is
   * found from the deepest existing ancestor so every symlink on the way counts. A reason denies.
   */
  async judgeDeclared(asked: string, abs: string, access: FsAccessKind): Promise<string | undefined> {
    if (asked.includes('\0')) return `sandbox denied ${verb(access)} ${JSON.stringify(asked)}: the path contains a NUL byte`
    let real: string
    try {
      real = await resolveRealPath(abs)
    } catch (error) {
      return `sandbox denied ${verb(access)} ${JSON.stringify(asked)}: it could not be resolved (${error instanceof Error ? error.message : error})`
    }
    return this.judge(asked, abs, real, access)
  }

  /** Judges an already resolved real path as it is; used for the seam's `descriptor` phase too. */
  async judge(asked: string, abs: string, real: string, access: FsAccessKind): Promise<string | undefined> {
    await this.ready
    const label = asked === real ? JSON.stringify(asked) : `${JSON.stringify(asked)} (resolves to ${real})`
    const denied = (rule: string) => `sandbox denied ${verb(access)} ${label}: ${rule}`
    if (real.includes('\0') || abs.includes('\0')) return denied('the path contains a NUL byte')
    const root = this.roots.find((r) => isWithin(real, r))
    const readOnly = this.readOnlyRoots.find((r) => isWithin(real, r))
    if (!root && !readOnly) return denied(`it is outside the sandbox roots (${this.listRoots()})`)
    if (access === 'write' && readOnly) return denied(`it is under the read-only root ${readOnly}`)
    for (const candidate of new Set([real, abs])) {
      const rule = this.denyRuleFor(candidate)
      if (rule) return denied(`it matches deny rule "${rule}"`)
    }
    const covered = this.movedObjectAt(real, (root ?? readOnly)!)
    if (covered)
      return denied(`${covered === real ? 'it is' : `it is inside ${covered}, which is`} an object a deny rule hid from the shell, renamed or moved since`)
  }

  /** The identities a shell provider hid at its latest launch (the `fs-sandbox/hidden` event). */
  coverMoved(identities: ReadonlySet<string>): void {
    this.moved = identities
  }

  /** `real` or the folder above it (below `base`) that is one of the moved objects. */
  private movedObjectAt(real: string, base: string): string | undefined {
    if (!this.moved.size) return undefined
    for (let path = real; path !== base && isWithin(path, base); path = nodePath.dirname(path)) {
      const stats = lstatSync(path, { throwIfNoEntry: false })
      if (stats && this.moved.has(objectIdentity(stats))) return path
    }
  }

  /** Throws FS_SANDBOX_DENIED for a reason; the shape the fs seam's checks use. */
  async enforce(asked: string, abs: string, real: string, access: FsAccessKind): Promise<void> {
    const reason = await this.judge(asked, abs, real, access)
    if (reason) throw new FsError('FS_SANDBOX_DENIED', reason, abs)
  }

  /** The roots as real paths, once `ready` settled; for a provider confining by the same rules (shell-sandbox). */
  resolvedRoots(): { roots: string[]; readOnlyRoots: string[] } {
    return { roots: [...this.roots], readOnlyRoots: [...this.readOnlyRoots] }
  }

  /** The deny glob covering a real path (or a directory above it), synchronously, once `ready` settled. */
  deniedBy(path: string): string | undefined {
    return this.denyRuleFor(path)
  }

  /** A deny glob matching the path or any directory above it (up to its root), like .gitignore. */
  private denyRuleFor(path: string): string | undefined {
    if (!this.rules.length) return undefined
    const base = [...this.roots, ...this.readOnlyRoots].find((r) => isWithin(path, r))
    const relative = base === undefined ? '' : nodePath.relative(base, path).split(nodePath.sep).join('/')
    const segments = relative ? relative.split('/') : []
    for (const rule of this.rules) {
      if (rule.absolute) {
        if (rule.matches(path) || ancestors(path).some((dir) => rule.matches(dir))) return rule.glob
        continue
      }
      for (let i = 1; i <= segments.length; i++) {
        if (rule.matches(segments.slice(0, i).join('/'))) return rule.glob
      }
    }
  }

  private listRoots() {
    const roots = this.roots.length ? this.roots.join(', ') : 'none'
    return this.readOnlyRoots.length ? `${roots}; read-only: ${this.readOnlyRoots.join(', ')}` : roots
  }
}

function ancestors(path: string): string[] {
  const dirs: string[] = []
  for (let dir = nodePath.dirname(path); dir !== nodePath.dirname(dir); dir = nodePath.dirname(dir)) dirs.push(dir)
  return dirs
}

function verb(access: FsAccessKind) {
  return access === 'write' ? 'write to' : 'read of'
}

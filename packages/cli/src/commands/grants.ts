import nodePath from 'node:path'
import { GrantStore, readGrantsFile, type Grant } from '@dshkit/user-approval'
import { visible } from '../terminal.js'

export interface GrantsOptions {
  /** The grants file; wins over `root`. */
  file?: string
  /** The project whose `.dshkit/grants.json` to use (default: the current directory). */
  root?: string
  json: boolean
}

/** Where user-approval (and dsh-base) keep grants for a project. */
export function grantsFileOf({ file, root }: Pick<GrantsOptions, 'file' | 'root'>): string {
  return nodePath.resolve(file ?? nodePath.join(root ?? '.', '.dshkit', 'grants.json'))
}

/** `dshkit grants`: lists the stored "always" answers, exact and rule. */
export async function listGrants(options: GrantsOptions): Promise<number> {
  const file = grantsFileOf(options)
  const { grants } = await readGrantsFile(file)
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ file, grants })}\n`)
    return 0
  }
  const say = (text: string) => process.stdout.write(`${visible(text)}\n`)
  say(`${grants.length} grant${grants.length === 1 ? '' : 's'} in ${file}${grants.length ? '' : ' (none yet: "always" answers are stored here)'}`)
  for (const grant of grants) say(describeGrant(grant))
  if (grants.length) say('Revoke one with: dshkit grants revoke ID (same --root or --file)')
  return 0
}

/** `dshkit grants revoke ID`: removes one grant; the next matching call is asked about again. */
export async function revokeGrant(id: string, options: GrantsOptions): Promise<number> {
  const file = grantsFileOf(options)
  const { grants } = await readGrantsFile(file)
  const grant = grants.find((g) => g.id === id)
  // Rule context is unused by revoke: it never judges a call.
  const store = new GrantStore(file, { pathsOf: () => () => undefined, targets: () => undefined })
  if (!grant || !(await store.revoke(id)))
    throw new Error(
      `no grant ${id} in ${file}; list them with \`dshkit grants${options.file ? ` --file ${options.file}` : options.root ? ` --root ${options.root}` : ''}\``,
    )
  if (options.json) process.stdout.write(`${JSON.stringify({ file, revoked: grant })}\n`)
  else process.stdout.write(`${visible(`revoked ${grant.id} (${grant.kind}: ${grant.summary}) from ${file}`)}\n`)
  return 0
}

function describeGrant(grant: Grant): string {
  const what = grant.kind === 'exact' ? `exact  ${grant.summary}  [sha256 ${grant.argumentsHash.slice(0, 12)}]` : `rule   ${grant.summary}`
  return `  ${grant.id}  ${grant.created}  ${what}${grant.by ? `  (by ${grant.by})` : ''}`
}

import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { WorkspaceConfig } from './config.js'
import { GRANTS_DIR } from './policy-files.js'

/** The grants file dsh-base keeps for a root: in its own `.dshkit` folder, which the workspace denies whole. */
export const grantsFileIn = (root: string) => resolve(root, GRANTS_DIR, 'grants.json')

/**
 * Why a grants file is open to the model's own tools, or undefined. A grants file the tools could write is a way for the
 * model to approve itself: inside a writable root it must sit in the root's own `.dshkit` folder (denied to the tools,
 * hidden whole from the shell, and neither it nor the root can be renamed from inside the sandbox). `sub/.dshkit` is
 * refused: one `mv sub x` would leave a `sub/.dshkit` the shell can make.
 */
export function writableGrants(grants: string, workspace: Pick<WorkspaceConfig, 'roots' | 'readOnlyRoots'>): string | undefined {
  const file = resolve(grants)
  const under = (folder: string) => {
    const rel = relative(resolve(folder), file)
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : undefined
  }
  if (workspace.readOnlyRoots.some((folder) => under(folder) !== undefined)) return undefined
  for (const root of workspace.roots) {
    const rel = under(root)
    if (rel === undefined || (rel.split(sep)[0] === GRANTS_DIR && rel.split(sep).length > 1)) continue
    return `${file} lies in the sandbox root ${resolve(root)}, where the model's tools could write a grant for themselves (or rename a folder above it and make a new one); put it in the root's own ${GRANTS_DIR} folder (e.g. ${join(resolve(root), GRANTS_DIR, 'grants.json')}, the default), in a read-only root, or outside the roots`
  }
}

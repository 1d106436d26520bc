import nodePath from 'node:path'
import { ACCEPTED_FILE, acceptAll } from '@dshkit/hook-protocol'
import { visible } from '../terminal.js'

export interface HooksOptions {
  /** The snapshot file; wins over `root`. */
  file?: string
  /** The project whose `.dshkit/hooks-accepted.json` to update (default: the current directory). */
  root?: string
  json: boolean
}

/** `dshkit hooks accept`: a person takes the present content of every hook settings file the bridges read as reviewed. */
export function acceptHooks({ file, root, json }: HooksOptions): number {
  const store = nodePath.resolve(file ?? nodePath.join(root ?? '.', ACCEPTED_FILE))
  const files = acceptAll(store)
  if (json) {
    process.stdout.write(`${JSON.stringify({ file: store, files })}\n`)
    return 0
  }
  const changed = files.filter((entry) => entry.changed)
  const say = (text: string) => process.stdout.write(`${visible(text)}\n`)
  if (!files.length) say(`no hook settings recorded in ${store} yet: the hook bridges record them when they first start`)
  else say(`accepted ${files.length} hook settings file${files.length === 1 ? '' : 's'} in ${store}${changed.length ? '' : ' (none had changed)'}`)
  for (const entry of changed) say(`  changed, now accepted: ${entry.file}`)
  return 0
}

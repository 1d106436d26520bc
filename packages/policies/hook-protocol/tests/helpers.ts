import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groupMembers } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))

export function fixture(name: string): string {
  return join(fixtures, name)
}

export { eventually, isLive, killAll, psMatching, readPid, tempDir, uniqueSleep } from '@dshkit/testing'

/** Live (non-zombie) processes whose process group is `pgid`, read from /proc. */
export function liveMembers(pgid: number): number[] {
  return (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z').map((m) => m.pid)
}

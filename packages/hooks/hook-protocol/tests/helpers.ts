import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groupMembers } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))

export function fixture(name: string): string {
  return join(fixtures, name)
}

export function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hook-protocol-'))
}

/** Live (non-zombie) processes whose process group is `pgid`, read from /proc. */
export function liveMembers(pgid: number): number[] {
  return (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z').map((m) => m.pid)
}

/** Whether `pid` is still a live process (a zombie counts as gone). */
export async function isLive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** Polls until `check` holds or `ms` pass; returns the last answer. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return check()
}

export async function readPid(file: string): Promise<number> {
  const text = await readFile(file, 'utf8')
  return Number(text.trim())
}

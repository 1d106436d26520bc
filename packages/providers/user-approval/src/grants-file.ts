import { randomBytes } from 'node:crypto'
import { promises as fsp } from 'node:fs'
import nodePath from 'node:path'
import { snapshotJson, writeFileDurably } from '@dshkit/common'
import type { Grant } from '@dshkit/approval'
import { checkGrantRule } from '@dshkit/rules'
import { z } from 'zod'
import { GrantsFileError } from './errors.js'

/** The file's shape: `{ "version": 1, "grants": [...] }`. */
export interface GrantsFile {
  version: 1
  grants: Grant[]
}

const hex64 = /^[0-9a-f]{64}$/
const MAX_FILE_BYTES = 16 * 1024 * 1024
const iso = z.iso.datetime({ offset: true, error: 'created must be an ISO 8601 date-time' })
const base = {
  id: z.string().regex(/^g_[0-9a-z_-]{1,64}$/i, 'id must look like g_0123abcd…'),
  created: iso,
  tool: z.string().min(1, 'tool must be a non-empty string'),
  summary: z.string(),
  by: z.string().optional(),
}
const exact = z.strictObject({
  ...base,
  kind: z.literal('exact'),
  argumentsHash: z.string().regex(hex64, 'argumentsHash must be 64 lowercase hex characters (sha256)'),
})
const rule = z.strictObject({ ...base, kind: z.literal('rule'), rule: z.unknown() })
const grantSchema = z.discriminatedUnion('kind', [exact, rule], { error: 'kind must be "exact" or "rule"' })
const fileSchema = z.strictObject({
  version: z.literal(1, 'version must be 1'),
  grants: z.array(grantSchema),
})

/** Parses and checks the file's text; throws GrantsFileError naming the file and the problem. */
export function parseGrantsFile(file: string, text: string): GrantsFile {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new GrantsFileError(file, `is not valid JSON (${(error as Error).message}); fix it or delete it to start with no grants`)
  }
  try {
    // Refuses `__proto__` keys anywhere and gives null-prototype objects, so hand-edited keys stay data.
    raw = snapshotJson(raw, 'grants file')
  } catch (error) {
    throw new GrantsFileError(file, `${(error as Error).message}; fix it or delete it`)
  }
  const parsed = fileSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const at = issue.path.length ? ` (at ${issue.path.join('.')})` : ''
    throw new GrantsFileError(file, `${issue.message}${at}; expected { "version": 1, "grants": [...] } as dshkit writes it`)
  }
  const seen = new Set<string>()
  const grants = parsed.data.grants.map((grant, index) => {
    if (seen.has(grant.id)) throw new GrantsFileError(file, `grant id ${grant.id} appears twice (at grants.${index})`)
    seen.add(grant.id)
    if (grant.kind === 'exact') return { ...grant }
    try {
      return { ...grant, rule: checkGrantRule(grant.rule) }
    } catch (error) {
      throw new GrantsFileError(file, `grants.${index}.rule: ${(error as Error).message}`)
    }
  }) as Grant[]
  return { version: 1, grants }
}

/** Reads the file; a missing file holds no grants. */
export async function readGrantsFile(file: string): Promise<GrantsFile> {
  let text: string
  try {
    // Never a FIFO or a device (it could block or never end), never a file too big to be grants.
    const info = await fsp.stat(file)
    if (!info.isFile()) throw new GrantsFileError(file, 'is not a regular file; point `grants` at a JSON file')
    if (info.size > MAX_FILE_BYTES)
      throw new GrantsFileError(file, `is ${info.size} bytes, more than the ${MAX_FILE_BYTES} a grants file may hold; fix it or delete it`)
    text = await fsp.readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof GrantsFileError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, grants: [] }
    throw new GrantsFileError(file, `cannot be read (${(error as Error).message})`)
  }
  return parseGrantsFile(file, text)
}

/** Writes the whole file atomically and durably (a private temp file beside it, fsync, rename, fsync of the folder). */
export async function writeGrantsFile(file: string, content: GrantsFile): Promise<void> {
  await fsp.mkdir(nodePath.dirname(file), { recursive: true, mode: 0o700 })
  await writeFileDurably(file, `${JSON.stringify(content, null, 2)}\n`)
}

export function newGrantId(): string {
  return `g_${randomBytes(8).toString('hex')}`
}

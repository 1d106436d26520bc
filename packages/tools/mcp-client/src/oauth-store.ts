import { promises as fsp } from 'node:fs'
import nodePath from 'node:path'
import { writeFileDurably } from '@dshkit/common'
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'

/** What is kept for one server: bound to its url, so a changed url never gets another server's tokens. */
export interface OAuthEntry {
  url: string
  clientInformation?: OAuthClientInformationMixed
  tokens?: OAuthTokens
}

interface OAuthFile {
  version: 1
  servers: Record<string, OAuthEntry>
}

/** A store error names the file and what to do, never what it holds (tokens, secrets). */
export class OAuthStoreError extends Error {
  override name = 'OAuthStoreError'
}

/**
 * Tokens and client registrations of every OAuth server, in one JSON file of mode 0600 (folder 0700), read once and
 * rewritten whole (a private temp file, then rename) after each change, one write at a time. `false`: memory only.
 */
export class OAuthStore {
  private content: Promise<OAuthFile> | undefined
  private writing: Promise<void> = Promise.resolve()

  constructor(readonly file: string | false) {}

  async get(server: string, url: string): Promise<OAuthEntry> {
    const entry = (await this.load()).servers[server]
    return entry?.url === url ? entry : { url }
  }

  /** Applies `change` to the server's entry and writes the file; resolves once it is on disk. */
  async update(server: string, url: string, change: (entry: OAuthEntry) => OAuthEntry): Promise<void> {
    const content = await this.load()
    content.servers[server] = change(await this.get(server, url))
    const write = this.writing.then(() => (this.file === false ? undefined : writeAtomic(this.file, content)))
    this.writing = write.catch(() => {})
    await write
  }

  private load(): Promise<OAuthFile> {
    this.content ??= this.file === false ? Promise.resolve({ version: 1, servers: Object.create(null) }) : readStore(this.file)
    return this.content
  }
}

async function readStore(file: string): Promise<OAuthFile> {
  let text: string
  try {
    const stat = await fsp.stat(file)
    // Like ssh with a private key: a token file others can read is refused rather than used.
    if (stat.mode & 0o077)
      throw new OAuthStoreError(`the MCP OAuth token file ${file} can be read by others (mode ${(stat.mode & 0o777).toString(8)}); run chmod 600 on it`)
    text = await fsp.readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof OAuthStoreError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: Object.create(null) }
    throw new OAuthStoreError(`the MCP OAuth token file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // JSON.parse's own message quotes the text, which holds tokens.
    parsed = undefined
  }
  const servers = (parsed as OAuthFile | undefined)?.servers
  if ((parsed as OAuthFile | undefined)?.version !== 1 || !servers || typeof servers !== 'object' || Array.isArray(servers))
    throw new OAuthStoreError(`the MCP OAuth token file ${file} is not a version 1 token file; delete it to authorize again`)
  return { version: 1, servers: Object.assign(Object.create(null), servers) }
}

/** Written durably (a private temp file beside it, fsync, rename, fsync of the folder): a crash leaves the old file or the new one. */
async function writeAtomic(file: string, content: OAuthFile): Promise<void> {
  await fsp.mkdir(nodePath.dirname(file), { recursive: true, mode: 0o700 })
  try {
    await writeFileDurably(file, `${JSON.stringify(content, null, 2)}\n`)
  } catch (error) {
    throw new OAuthStoreError(`the MCP OAuth token file ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}

import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { sanitizeName } from './names.js'
import { OAuth, authorizeHandler } from './oauth-config.js'

export const DEFAULT_TIMEOUT_MS = 60_000
/** `mcp__` + name + `__` stays within the 55 characters a cut 64-character tool name keeps. */
export const MAX_SERVER_NAME = 48

const ms = (what: string) => z.number().int(`${what} must be a whole number of milliseconds`).positive(`${what} must be positive`)
const toolList = (what: string) => z.array(z.string().min(1, `${what} entries must be tool names`)).optional()

const Restart = strictConfig({
  /** Restarts in a row without a successful connection before the server is given up. */
  maxAttempts: z.number().int().min(0, 'restart.maxAttempts must be 0 (never restart) or more').default(5),
  baseDelayMs: ms('restart.baseDelayMs').default(500),
  maxDelayMs: ms('restart.maxDelayMs').default(30_000),
}).prefault({})

/** One server: either a command (stdio) or a url (Streamable HTTP); the keys of the other kind are refused. */
const Server = strictConfig({
  command: z.string().min(1, 'command must name a program').optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  url: z.url('url must be an http(s) URL').optional(),
  headers: z
    .record(
      // Refused here, never echoed: a header value is often a secret, and fetch's own error would print it.
      z.string(),
      z.string().refine((value) => !/[\r\n\0]/.test(value), 'a header value cannot hold CR, LF or NUL (it would split the request); check this header'),
    )
    .optional(),
  timeoutMs: ms('timeoutMs').default(DEFAULT_TIMEOUT_MS),
  progressResetsTimeout: z.boolean().default(false),
  maxTotalTimeoutMs: ms('maxTotalTimeoutMs').optional(),
  trusted: z.boolean().default(false),
  enabled: toolList('enabled'),
  disabled: toolList('disabled'),
  restart: Restart,
  startupTimeoutMs: ms('startupTimeoutMs').default(30_000),
  oauth: OAuth.optional(),
}).superRefine((server, issues) => {
  const kind = server.command !== undefined ? 'command' : server.url !== undefined ? 'url' : undefined
  if (server.command !== undefined && server.url !== undefined) {
    issues.addIssue({ code: 'custom', path: ['url'], message: 'a server has either command (stdio) or url (HTTP), not both' })
  } else if (!kind) {
    issues.addIssue({ code: 'custom', path: [], message: 'a server needs command (a stdio server to start) or url (a Streamable HTTP endpoint)' })
  }
  if (kind === 'url') {
    for (const key of ['args', 'env', 'cwd'] as const) {
      if (server[key] !== undefined) issues.addIssue({ code: 'custom', path: [key], message: `${key} applies to a command server, not a url one` })
    }
    if (server.url && !/^https?:\/\//i.test(server.url)) issues.addIssue({ code: 'custom', path: ['url'], message: 'url must start with http:// or https://' })
    // fetch refuses such a URL, and its error prints it whole, password included.
    else if (server.url && URL.canParse(server.url) && (new URL(server.url).username || new URL(server.url).password)) {
      issues.addIssue({ code: 'custom', path: ['url'], message: 'url must not carry credentials (user:password@); send them in headers (e.g. authorization)' })
    }
  }
  for (const header of Object.keys(server.headers ?? {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header))
      issues.addIssue({ code: 'custom', path: ['headers', header], message: `${JSON.stringify(header)} is not a valid HTTP header name` })
  }
  if (kind === 'command' && server.headers !== undefined)
    issues.addIssue({ code: 'custom', path: ['headers'], message: 'headers apply to a url server, not a command one' })
  if (kind === 'command' && server.oauth !== undefined)
    issues.addIssue({ code: 'custom', path: ['oauth'], message: 'oauth applies to a url server, not a command one' })
  // Two sources of one header: which one the server sees would be an accident.
  if (server.oauth !== undefined && Object.keys(server.headers ?? {}).some((header) => header.toLowerCase() === 'authorization'))
    issues.addIssue({
      code: 'custom',
      path: ['headers'],
      message: 'a server with oauth gets its authorization header from OAuth; remove headers.authorization or oauth',
    })
  if (server.enabled && server.disabled) {
    const both = server.enabled.filter((name) => server.disabled!.includes(name))
    if (both.length) issues.addIssue({ code: 'custom', path: ['disabled'], message: `${both.join(', ')} is both enabled and disabled; say one` })
  }
  if (server.maxTotalTimeoutMs !== undefined && server.maxTotalTimeoutMs < server.timeoutMs) {
    issues.addIssue({
      code: 'custom',
      path: ['maxTotalTimeoutMs'],
      message: `maxTotalTimeoutMs (${server.maxTotalTimeoutMs}) is below timeoutMs (${server.timeoutMs})`,
    })
  }
})

export const Config = strictConfig({
  // Looked at raw: a record drops a `__proto__` key without a word.
  servers: z
    .preprocess(
      (raw, ctx) => {
        if (raw && typeof raw === 'object' && Object.hasOwn(raw, '__proto__')) {
          ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'a server cannot be named "__proto__"; pick another name', input: raw })
        }
        return raw
      },
      z.record(z.string(), Server).superRefine((servers, issues) => {
        const seen = new Map<string, string>()
        for (const name of Object.keys(servers)) {
          const clean = sanitizeName(name)
          if (!clean) issues.addIssue({ code: 'custom', path: [name], message: 'a server name needs at least one character' })
          else if (name.includes('__'))
            issues.addIssue({
              code: 'custom',
              path: [name],
              message: `server names must not contain "__" (it separates server and tool in mcp__${name}__<tool>)`,
            })
          // Checked on the sanitised name too: `a..b` is mcp__a__b__…, which a rule for server `a` would match; `gh.` is mcp__gh___… (a `gh` rule's).
          else if (clean.includes('__'))
            issues.addIssue({
              code: 'custom',
              path: [name],
              message: `server names must not contain "__" once sanitised (${JSON.stringify(name)} becomes mcp__${clean}__…, which rules for a server ${JSON.stringify(clean.split('__')[0])} would match)`,
            })
          // Longer, and the 64-character cut would eat into mcp__<server>__: mcp__<server>__* rules would miss its tools.
          else if (clean.length > MAX_SERVER_NAME)
            issues.addIssue({
              code: 'custom',
              path: [name],
              message: `a server name can have at most ${MAX_SERVER_NAME} characters (${clean.length} here): mcp__<server>__ must fit in a 64-character tool name for mcp__<server>__* rules to match`,
            })
          else if (clean.endsWith('_'))
            issues.addIssue({
              code: 'custom',
              path: [name],
              message: `server names must not end in "_" once sanitised (${JSON.stringify(name)} becomes mcp__${clean}__…, which rules for a server ${JSON.stringify(clean.replace(/_+$/, ''))} would match)`,
            })
          const other = seen.get(clean)
          if (other !== undefined)
            issues.addIssue({
              code: 'custom',
              path: [name],
              message: `server names ${JSON.stringify(other)} and ${JSON.stringify(name)} both become mcp__${clean}__…; rename one`,
            })
          seen.set(clean, name)
        }
      }),
    )
    .default({}),
  /** Tokens and client registrations of OAuth servers; relative to the cwd at start; false keeps them in memory. */
  oauthFile: z
    .union([z.string().min(1), z.literal(false)], { error: 'oauthFile must be a file path, or false to keep OAuth tokens in memory' })
    .default('.dshkit/mcp-oauth.json'),
  /** Gets each authorization URL (default: one line on stderr); a headless caller may answer it itself. */
  authorize: authorizeHandler.optional(),
}).prefault({})

export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>
export type ServerConfig = Config['servers'][string]

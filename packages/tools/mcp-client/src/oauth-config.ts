import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

/** Where the code comes back: a loopback listener, so only http://127.0.0.1 (RFC 8252 §7.3), port 0 or none = any free port. */
const loopback = z.string().refine((value) => {
  if (!URL.canParse(value)) return false
  const url = new URL(value)
  return url.protocol === 'http:' && url.hostname === '127.0.0.1' && !url.username && !url.password && !url.search && !url.hash
}, 'redirectUrl must be http://127.0.0.1[:port]/path (the code comes back to a loopback listener; no query, no credentials)')

const OAuthOptions = strictConfig({
  /** A client registered beforehand; without it the client registers itself (dynamic client registration). */
  clientId: z.string().min(1, 'clientId must not be empty').optional(),
  clientSecret: z.string().min(1, 'clientSecret must not be empty').optional(),
  /** Asked for when neither the server's WWW-Authenticate nor its metadata names scopes. */
  scope: z.string().min(1, 'scope must not be empty').optional(),
  redirectUrl: loopback.optional(),
  tokenAuthMethod: z
    .enum(['client_secret_basic', 'client_secret_post', 'none'], {
      error: 'tokenAuthMethod must be "client_secret_basic", "client_secret_post" or "none"',
    })
    .optional(),
  /** An https URL serving this client's metadata document (SEP-991), used as client_id where the server supports it. */
  clientMetadataUrl: z.url({ protocol: /^https$/, error: 'clientMetadataUrl must be an https URL' }).optional(),
  /** How long a start waits for the person to authorize in the browser. */
  authorizationTimeoutMs: z.number().int().positive('authorizationTimeoutMs must be positive').default(300_000),
}).superRefine((options, issues) => {
  if (options.clientSecret !== undefined && options.clientId === undefined)
    issues.addIssue({ code: 'custom', path: ['clientSecret'], message: 'clientSecret needs the clientId it belongs to' })
})

const shape = 'oauth must be true or { clientId?, clientSecret?, scope?, redirectUrl?, tokenAuthMethod?, clientMetadataUrl?, authorizationTimeoutMs? }'

/**
 * `oauth: true` (every default) or the options. Not a union: zod reports a union's failure as one vague issue, and the
 * options' own messages (a did-you-mean, a bad value) must reach the person. The secret is never echoed by an error.
 */
export const OAuth = z.preprocess((value, ctx) => {
  if (value === true) return {}
  if (value && typeof value === 'object' && !Array.isArray(value)) return value
  ctx.addIssue({ code: 'custom', message: shape, input: value })
  return {}
}, OAuthOptions) as unknown as z.ZodType<OAuthOptions, true | z.input<typeof OAuthOptions>>

export type OAuthOptions = z.infer<typeof OAuthOptions>

export interface AuthorizeRequest {
  server: string
  /** The authorization server's page to open; its redirect brings the code to the loopback listener. */
  url: string
  /** Aborted when nobody waits any more (timeout, disposal). */
  signal: AbortSignal
}
/** Shows the person the authorization URL (or, headless, answers it); the code always arrives at the listener. */
export type AuthorizeHandler = (request: AuthorizeRequest) => void | Promise<unknown>

export const authorizeHandler = z.custom<AuthorizeHandler>((value) => typeof value === 'function', 'authorize must be a function (pass it from code)')

/** The default handler: one line on stderr telling the person where to go. */
export const printAuthorizationUrl: AuthorizeHandler = ({ server, url }) => {
  process.stderr.write(`dshkit: MCP server "${server}" needs authorization; open this URL in a browser: ${url}\n`)
}

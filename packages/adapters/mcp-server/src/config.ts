import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

export const Config = strictConfig({
  /** The server name MCP clients see in `initialize`. */
  name: z.string().min(1, 'name must be a non-empty string').default('dshkit'),
  /** Ask through MCP elicitation when a call needs approval and the client supports it. */
  elicitation: z.boolean().default(true),
  /** How often the tool list is compared for `notifications/tools/list_changed` (plugin changes are seen at once). */
  listChangedPollMs: z.number().int('listChangedPollMs must be a whole number of ms').min(50, 'listChangedPollMs must be at least 50 ms').default(500),
  /** Streamable HTTP: who may connect (used by `listen()`). */
  http: strictConfig({
    host: z.string().min(1).default('127.0.0.1'),
    /** A fixed token (e.g. from an environment variable) instead of a random one per start; at least 32 characters. */
    token: z.string().min(32, 'http.token must be at least 32 characters (or leave it out for a random one)').optional(),
    /** Browser Origins allowed to call (exact, e.g. "http://localhost:5173"); by default a request with any Origin is refused. */
    allowedOrigins: z.array(z.string().url('each allowedOrigins entry must be an origin URL like "http://localhost:5173"')).default([]),
    /**
     * Also take the token as the path's last segment, `/mcp/<token>`, for clients that cannot send an Authorization
     * header (the MCP conformance suite). Off by default: a URL ends up in logs and process lists, so treat it as the secret.
     */
    tokenInUrl: z.boolean().default(false),
    /** Listen on a non-loopback host and accept non-loopback peers (the token is still required). */
    allowRemote: z.boolean().default(false),
    /** A session with no request open (no call, no GET stream) for this long is closed: its client left without DELETE. */
    idleSessionMs: z
      .number()
      .int('http.idleSessionMs must be a whole number of ms')
      .positive('http.idleSessionMs must be more than 0')
      .default(30 * 60_000),
    /** Live sessions at most: a new one first closes the oldest with nothing open, else it is refused (503). */
    maxSessions: z.number().int('http.maxSessions must be a whole number').positive('http.maxSessions must be at least 1').default(1000),
  }).prefault({}),
}).prefault({})
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

import { createHash, randomBytes } from 'node:crypto'
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { AuthorizeHandler, OAuthOptions } from './oauth-config.js'
import { LoopbackListener } from './oauth-listener.js'
import type { OAuthStore } from './oauth-store.js'

const DEFAULT_REDIRECT = 'http://127.0.0.1/callback'

/** One authorization the SDK started: its URL, the state it carries and the PKCE verifier of its challenge. */
interface Flow {
  url: URL
  state: string
  verifier: string | undefined
}

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')

/**
 * The SDK's `OAuthClientProvider` for one server. The SDK does discovery, registration, PKCE, the token exchange and
 * refresh; this keeps what it hands over (in the OAuthStore), and brings the person to the authorization page and the
 * code back (the loopback listener). An authorization URL is shown only when a start or a call waits for it, so a
 * flow the SDK starts in the background (the GET stream) and a newer one replaces never reaches the person.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly listener: LoopbackListener
  private discovery: OAuthDiscoveryState | undefined
  private latest: Flow | undefined
  private active: Flow | undefined
  /** Recent PKCE verifiers by challenge: two flows the SDK runs at once each get their own. */
  private readonly verifiers = new Map<string, string>()
  private disposed = false
  private running: Promise<void> | undefined

  constructor(
    readonly server: string,
    private readonly serverUrl: string,
    private readonly options: OAuthOptions,
    private readonly store: OAuthStore,
    private readonly authorize: AuthorizeHandler,
    warn: (message: string) => void,
  ) {
    this.listener = new LoopbackListener(options.redirectUrl ?? DEFAULT_REDIRECT, (message) => warn(`MCP server "${server}": ${message}`))
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl
  }

  get redirectUrl(): string {
    return this.listener.url.href
  }

  get clientMetadata(): OAuthClientMetadata {
    const { scope, tokenAuthMethod, clientSecret } = this.options
    return {
      client_name: 'dshkit',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: tokenAuthMethod ?? (clientSecret ? 'client_secret_basic' : 'none'),
      ...(scope ? { scope } : {}),
    }
  }

  state(): string {
    return randomBytes(24).toString('base64url')
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { clientId, clientSecret, tokenAuthMethod } = this.options
    if (clientId !== undefined) {
      return {
        client_id: clientId,
        ...(clientSecret ? { client_secret: clientSecret } : {}),
        ...(tokenAuthMethod ? { token_endpoint_auth_method: tokenAuthMethod } : {}),
      }
    }
    return (await this.store.get(this.server, this.serverUrl)).clientInformation
  }

  async saveClientInformation(clientInformation: OAuthClientInformationMixed): Promise<void> {
    // A client given in config is the config's: nothing to keep.
    if (this.options.clientId !== undefined) return
    await this.store.update(this.server, this.serverUrl, (entry) => ({ ...entry, clientInformation }))
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.store.get(this.server, this.serverUrl)).tokens
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.store.update(this.server, this.serverUrl, (entry) => ({ ...entry, tokens }))
    // Authorized (or refreshed): nothing more can come back to the listener.
    if (!this.active) await this.listener.close()
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifiers.set(challengeOf(codeVerifier), codeVerifier)
    if (this.verifiers.size > 8) this.verifiers.delete(this.verifiers.keys().next().value!)
  }

  codeVerifier(): string {
    const verifier = this.active?.verifier ?? [...this.verifiers.values()].at(-1)
    if (verifier === undefined) throw new Error('no authorization is under way (no PKCE verifier)')
    return verifier
  }

  /** Called by the SDK's auth(); kept until a start or a call waits for it (waitForCode). */
  redirectToAuthorization(url: URL): void {
    const challenge = url.searchParams.get('code_challenge') ?? ''
    this.latest = { url, state: url.searchParams.get('state') ?? '', verifier: this.verifiers.get(challenge) }
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined
    if (scope === 'all' || scope === 'verifier') this.verifiers.clear()
    if (scope === 'all' || scope === 'client' || scope === 'tokens') {
      const dropClient = scope !== 'tokens'
      await this.store.update(this.server, this.serverUrl, (entry) => ({
        url: entry.url,
        ...(dropClient ? {} : { clientInformation: entry.clientInformation }),
        ...(scope === 'client' ? { tokens: entry.tokens } : {}),
      }))
    }
  }

  /** The SDK asks this first in each auth(): the listener is bound then, so the redirect URL it registers is final. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // A flow the SDK still runs in the background after disposal must not bind a listener nobody closes.
    if (this.disposed) throw new Error(`MCP server "${this.server}" is closed`)
    await this.listener.open()
    return this.discovery
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state
  }

  /**
   * Shows the newest authorization URL (through `authorize`) and waits for its code at the listener, until `signal`
   * aborts.
   */
  private async waitForCode(signal: AbortSignal): Promise<string> {
    const flow = this.latest
    if (!flow) throw new Error('the server asked for authorization, but no authorization URL was made')
    this.latest = undefined
    this.active = flow
    const controller = new AbortController()
    const stop = () => controller.abort(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    if (signal.aborted) stop()
    const code = this.listener.expect(flow.state)
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('no authorization came back in time')), { once: true })
    })
    // Whichever loses the race settles later, unheard.
    code.catch(() => {})
    aborted.catch(() => {})
    try {
      await Promise.race([Promise.resolve(this.authorize({ server: this.server, url: flow.url.href, signal: controller.signal })), aborted])
      return await Promise.race([code, aborted])
    } finally {
      signal.removeEventListener('abort', stop)
      controller.abort()
    }
  }

  /**
   * One authorization at a time: shows the URL, waits for the code and hands it to `finish` (the transport's
   * finishAuth). A second caller that needs one meanwhile (two calls that both got a 401) waits for the one under
   * way instead of sending the person to a second page, then tries again with its tokens.
   */
  async authorizeWith(finish: (code: string) => Promise<void>, signal: AbortSignal): Promise<void> {
    if (this.running) return this.running
    this.running = (async () => {
      try {
        await finish(await this.waitForCode(signal))
      } finally {
        await this.settle()
        this.running = undefined
      }
    })()
    return this.running
  }

  /** The server's connection is closed for good: no flow binds the listener again. */
  async dispose(): Promise<void> {
    this.disposed = true
    await this.settle()
  }

  /** After finishAuth (or a failed wait): the verifier of the flow is spent, the listener unbound. */
  async settle(): Promise<void> {
    this.active = undefined
    await this.listener.close()
  }
}

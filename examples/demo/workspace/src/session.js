// Refreshes a session token a minute before it expires.
export function shouldRefresh(token, now = Date.now()) {
  return token.expiresAt - now < 60_000
}

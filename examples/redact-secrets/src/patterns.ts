/**
 * API-key-shaped strings. A named group `secret` marks the part to hide, so a label such as
 * `api_key=` stays readable; without one the whole match is hidden.
 */
export const BUILTIN_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic (sk-ant-…), other sk- keys
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{22,}/g, // GitHub fine-grained tokens
  /\bxox[baprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(?:api[_-]?key|secret|token|password)["']?\s*[:=]\s*["']?(?<secret>[^\s"',;]{16,})/gi,
]

/** Compiles a pattern from config; throws a message naming the pattern when it is unusable. */
export function compileUserPattern(source: string): RegExp {
  let regex: RegExp
  try {
    regex = new RegExp(source, 'g')
  } catch (error) {
    throw new Error(`pattern ${JSON.stringify(source)} is not a valid JavaScript regular expression: ${(error as Error).message}`)
  }
  // A pattern that matches nothing at all would "redact" the gap between every two characters.
  if (new RegExp(source).test('')) throw new Error(`pattern ${JSON.stringify(source)} matches the empty string; it must match at least one character`)
  return regex
}

/** Replaces every match of every pattern; returns the new text and how many matches were hidden. */
export function redactText(text: string, patterns: readonly RegExp[], replacement: string): [string, number] {
  let count = 0
  for (const pattern of patterns) {
    text = text.replace(pattern, (match: string, ...rest: unknown[]) => {
      count++
      const groups = rest.at(-1)
      const secret = groups && typeof groups === 'object' ? (groups as Record<string, string | undefined>).secret : undefined
      if (!secret) return replacement
      const at = match.lastIndexOf(secret)
      return match.slice(0, at) + replacement + match.slice(at + secret.length)
    })
  }
  return [text, count]
}

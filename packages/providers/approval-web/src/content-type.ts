import { escapeControls } from '@dshkit/common'

/**
 * Why a request body's `content-type` is not JSON, or undefined when it is: exactly `application/json` (any case), with
 * parameters allowed after `;` as long as a `charset` says UTF-8 — never a prefix (`application/json-patch+json`).
 */
export function notJson(header: string | null | undefined): string | undefined {
  const [type, ...parameters] = (header ?? '').split(';')
  const shown = JSON.stringify(escapeControls(header ?? '').slice(0, 80))
  if (type.trim().toLowerCase() !== 'application/json') return header ? `got ${shown}` : 'no content-type was sent'
  for (const parameter of parameters) {
    const [name, ...rest] = parameter.split('=')
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
    if (name.trim().toLowerCase() === 'charset' && value.toLowerCase() !== 'utf-8')
      return `got charset ${JSON.stringify(escapeControls(value).slice(0, 40))}; JSON is UTF-8`
  }
}

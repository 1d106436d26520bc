import { readFileSync } from 'node:fs'

// The page's files sit in the package's static/ folder, one level above both src/ and lib/.
const dir = new URL('../static/', import.meta.url)

export interface StaticFile {
  type: string
  body: string
}

/** Reads the page once; index.html gets the token so its script and style requests carry it. */
export function loadStatic(token: string): Record<string, StaticFile> {
  const read = (name: string) => readFileSync(new URL(name, dir), 'utf8')
  return {
    '/': { type: 'text/html; charset=utf-8', body: read('index.html').replaceAll('__TOKEN__', token) },
    '/app.js': { type: 'text/javascript; charset=utf-8', body: read('app.js') },
    '/style.css': { type: 'text/css; charset=utf-8', body: read('style.css') },
  }
}

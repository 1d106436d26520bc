import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Language, Parser } from 'web-tree-sitter'

const require = createRequire(import.meta.url)
let loading: Promise<Parser> | undefined
let loaded: Parser | undefined

/**
 * Loads the bash grammar (tree-sitter-bash's WebAssembly build, ~70 ms once per process).
 * `parseCommandLine` is synchronous and answers `{ ok: false }` until this has resolved.
 */
export function loadCommandParser(): Promise<void> {
  loading ??= (async () => {
    try {
      await Parser.init()
      const language = await Language.load(grammarPath())
      const parser = new Parser()
      parser.setLanguage(language)
      return (loaded = parser)
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      throw new Error(
        `cannot load the bash grammar (web-tree-sitter + tree-sitter-bash) that command rules need: ${why}; reinstall @dshkit/bash (its lib/ ships tree-sitter-bash.wasm)`,
      )
    }
  })()
  // A failed load may be retried by the next caller.
  loading.catch(() => {
    loading = undefined
  })
  return loading.then(() => undefined)
}

/** @internal The loaded parser, or undefined before `loadCommandParser()` has resolved (kept out of the typings: web-tree-sitter's need emscripten's globals). */
export function loadedParser(): Parser | undefined {
  return loaded
}

/** The grammar copied into lib/ at build (installing needs no build script); run from src/ in this repo, the dev dependency's. */
function grammarPath(): string {
  const shipped = fileURLToPath(new URL('./tree-sitter-bash.wasm', import.meta.url))
  return existsSync(shipped) ? shipped : require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')
}

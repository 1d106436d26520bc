import { createRequire } from 'node:module'
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
      const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
      const parser = new Parser()
      parser.setLanguage(language)
      return (loaded = parser)
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      throw new Error(
        `cannot load the bash grammar (web-tree-sitter + tree-sitter-bash) that command rules need: ${why}; reinstall @dshkit/bash's dependencies`,
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

// Ships tree-sitter-bash's WebAssembly grammar (and its license) in lib/, so installing @dshkit/bash runs no build script.
import { copyFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const from = dirname(createRequire(import.meta.url).resolve('tree-sitter-bash/package.json'))
copyFileSync(join(from, 'tree-sitter-bash.wasm'), 'lib/tree-sitter-bash.wasm')
copyFileSync(join(from, 'LICENSE'), 'lib/tree-sitter-bash.LICENSE')

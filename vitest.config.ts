import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{packages,bundles,examples}/**/tests/**/*.spec.ts', 'bench/tests/**/*.spec.ts'],
    // Build output only: `**/lib/**` would also skip the lib floor's own tests (packages/lib/*/tests).
    exclude: ['**/node_modules/**', '{packages/*/*,bundles/*,examples/*}/lib/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
})

import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{packages,bundles,examples}/**/tests/**/*.spec.ts', 'bench/tests/**/*.spec.ts'],
    exclude: ['**/node_modules/**', '**/lib/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
})

import { expect, test } from 'vitest'
import { Config } from '../src/index.js'

const problem = (input: unknown) => {
  const parsed = Config.safeParse(input)
  return parsed.success ? undefined : parsed.error.issues.map((issue) => issue.message).join('; ')
}

test('config mistakes are one line naming the key and what to do', () => {
  expect(problem({})).toMatch(/connectionString is required \(or pool options\)/)
  expect(problem({ connectionString: 'mysql://x' })).toMatch(/must start with postgres:\/\//)
  expect(problem({ connectionString: 'postgres://x/db', leasMs: 1000 })).toMatch(/leaseMs/)
  expect(problem({ connectionString: 'postgres://x/db', leaseMs: 100 })).toMatch(/leaseMs must be at least 300/)
  expect(problem({ connectionString: 'postgres://x/db', schema: 'Team; DROP' })).toMatch(/schema must be a plain lower-case SQL name/)
  expect(problem({ connectionString: 'postgres://x/db', pool: { query_timeout: 5000 } })).toBeUndefined()
  expect(Config.parse({ connectionString: 'postgres://x/db' })).toMatchObject({ schema: 'public', leaseMs: 15_000, timeoutMs: 300_000 })
})

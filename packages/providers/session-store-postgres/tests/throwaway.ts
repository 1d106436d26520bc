import { execFile } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)
const script = fileURLToPath(new URL('../../../../scripts/pg-throwaway.sh', import.meta.url))

export interface Server {
  url: string
  stop(): Promise<void>
}

/**
 * The PostgreSQL server tests and benches use: DSHKIT_TEST_PG_URL when set (.ci/run starts one and
 * sets it), else a throwaway cluster of our own (scripts/pg-throwaway.sh). Never skips: a server
 * that cannot be started or reached is an error naming what to do.
 */
export async function throwawayPostgres(): Promise<Server> {
  const given = process.env.DSHKIT_TEST_PG_URL
  if (given) {
    await reach(given, 'DSHKIT_TEST_PG_URL')
    return { url: given, stop: async () => {} }
  }
  const dir = await mkdtemp(join(tmpdir(), 'dshkit-pg-'))
  let url: string
  try {
    url = (await run('bash', [script, 'start', dir], { timeout: 90_000 })).stdout.trim()
  } catch (error) {
    await run('bash', [script, 'stop', dir]).catch(() => {})
    throw new Error(
      `could not start a throwaway PostgreSQL with scripts/pg-throwaway.sh (install postgresql-15, or set DSHKIT_TEST_PG_URL): ${(error as { stderr?: string }).stderr || (error as Error).message}`,
    )
  }
  await reach(url, 'the throwaway cluster')
  return {
    url,
    stop: async () => {
      await run('bash', [script, 'stop', dir])
    },
  }
}

async function reach(url: string, what: string) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
  } catch (error) {
    throw new Error(`cannot reach PostgreSQL at ${what} (${url}): ${(error as Error).message}`)
  } finally {
    await client.end().catch(() => {})
  }
}

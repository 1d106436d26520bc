import { describeSessionStore } from '@dshkit/session/conformance'
import { afterEach } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { PostgresSessionStore } from '../src/index.js'
import { freshSchema, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

describeSessionStore('PostgresSessionStore', async () => {
  const schema = freshSchema() // each test its own tables, so tests never see each other's rows
  const store = () => new PostgresSessionStore({ connectionString: server.url, sessionId: 'conformance', schema })
  return { store: store(), reopen: store }
})

import { join } from 'node:path'
import { describeSessionStore } from '@dshkit/session/conformance'
import { afterEach } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { JsonlSessionStore } from '../src/index.js'
import { tempDir } from './helpers.js'

afterEach(cleanup)

for (const groupCommit of [true, false]) {
  describeSessionStore(`JsonlSessionStore (groupCommit: ${groupCommit})`, async () => {
    const path = join(await tempDir(), 'session.jsonl')
    const store = () => new JsonlSessionStore(path, { groupCommit })
    return { store: store(), reopen: store }
  })
}

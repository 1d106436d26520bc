import { describeSessionStore } from '@dshkit/session/conformance'
import { MemorySessionStore } from '../src/index.js'

// No reopen: a memory log ends with its object, so the suite reads back with a second load() on the same store.
describeSessionStore('MemorySessionStore', async () => ({ store: new MemorySessionStore() }))

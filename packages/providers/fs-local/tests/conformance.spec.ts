import { describeFsProvider } from '@dshkit/fs/conformance'
import { afterEach } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { setup } from './helpers.js'

afterEach(cleanup)

// The seam's contract (texts, edits, listings, error codes, containment checks), as every fs provider runs it.
describeFsProvider('fs-local', async () => ({ fs: (await setup()).ctx.fs }))

import type { z } from 'zod'
import { strictConfig } from '@dshkit/common'

// No options: paths resolve against the fs provider's cwd, and file I/O has no deadline by design.
export const Config = strictConfig({}, { noKeysHint: 'tool-fs takes no options; set cwd and maxReadBytes on fs-local' }).prefault({})
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

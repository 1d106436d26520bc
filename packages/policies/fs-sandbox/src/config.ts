import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

const pathList = (what: string) =>
  z.array(
    z
      .string()
      .min(1, `${what} entries must be non-empty paths`)
      .refine((p) => !p.includes('\0'), `${what} entries must not contain NUL bytes`),
  )

export const Config = strictConfig({
  roots: pathList('roots')
    .default(() => [process.cwd()])
    .describe('Directories reads and writes may touch (relative entries resolve against process.cwd()).'),
  readOnlyRoots: pathList('readOnlyRoots').default([]).describe('Directories that may be read but never written, even inside a root.'),
  deny: z
    .array(z.string().min(1, 'deny globs must be non-empty'))
    .default(['**/.env*', '**/.git/**'])
    .describe('picomatch globs (dot: true) matched against the path relative to its root; an absolute glob matches the absolute path.'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

/** A list of paths: each non-empty and free of NUL bytes; `error` names what a value that is not a list should be. */
export const pathList = (what: string, error?: string) =>
  z.array(
    z
      .string()
      .min(1, `${what} entries must be non-empty paths`)
      .refine((p) => !p.includes('\0'), `${what} entries must not contain NUL bytes`),
    error === undefined ? undefined : { error },
  )

/** The deny globs a workspace has unless its config names its own. */
export const DEFAULT_DENY = ['**/.env*', '**/.git/**']

/** The workspace's keys, with their defaults and messages: fs-sandbox takes them as its config, shell-sandbox the same. */
export const workspaceShape = {
  roots: pathList('roots')
    .default(() => [process.cwd()])
    .describe('Directories reads and writes may touch (relative entries resolve against process.cwd()).'),
  readOnlyRoots: pathList('readOnlyRoots').default([]).describe('Directories that may be read but never written, even inside a root.'),
  deny: z
    .array(z.string().min(1, 'deny globs must be non-empty'))
    .default(() => [...DEFAULT_DENY])
    .describe('picomatch globs (dot: true) matched against the path relative to its root; an absolute glob matches the absolute path.'),
}

/** The keys of `workspaceShape`: set once (dsh-base: under fs-sandbox), read by every part that confines. */
export const WORKSPACE_KEYS = ['roots', 'readOnlyRoots', 'deny'] as const

export const WorkspaceConfig = strictConfig(workspaceShape).prefault({})
export type WorkspaceConfig = z.infer<typeof WorkspaceConfig>
/** What a user may pass (every key optional). */
export type WorkspaceConfigInput = z.input<typeof WorkspaceConfig>

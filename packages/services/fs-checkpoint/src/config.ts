import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { pathList } from '@dshkit/workspace'

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024

const dir = z
  .string({ error: 'dir is required: the folder for before-images, e.g. "<session log>.checkpoints" (dsh-base sets it)' })
  .min(1, 'dir must be a folder path')
  .refine((dir) => !dir.split(/[\\/]/).includes('.git'), 'dir must not be inside a .git folder: checkpoints never touch a repository')
  .describe('Folder for the before-images (dsh-base: "<log>.checkpoints").')
const shape = {
  dir,
  maxFileBytes: z
    .number()
    .int('maxFileBytes must be a whole number of bytes')
    .positive('maxFileBytes must be positive')
    .default(DEFAULT_MAX_FILE_BYTES)
    .describe('Largest file whose before-image is kept; a change to a larger file is refused.'),
  // The workspace's roots, as @dshkit/workspace checks them (no default: unset means any path the log names).
  roots: pathList('roots', 'roots must be a list of folder paths')
    .optional()
    .describe("Only files under these folders are ever rewound, whatever the log names (dsh-base: the workspace's roots)."),
}

export const Config = strictConfig(shape).prefault({} as { dir: string })
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

/** The same keys with `dir` optional: for a bundle that puts the folder beside its session log (dsh-base). */
export const BundledConfig = strictConfig({ ...shape, dir: dir.optional() }).prefault({})
export type BundledConfigInput = z.input<typeof BundledConfig>

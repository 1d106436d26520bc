import { z } from 'zod'
import { DEFAULT_LIMITS, type ResourceLimits } from './limits.js'

const value = (key: keyof ResourceLimits, unit: string) => {
  const message = `limits.${key} must be a positive whole number of ${unit}, or false to set none`
  return z.union([z.number().int(message).positive(message), z.literal(false)], { error: message })
}

const described = {
  processes: [
    value('processes', 'processes'),
    'Processes and threads alive at once in the whole tree of one command (cgroup pids.max where the machine allows, else a watcher).',
  ],
  memoryBytes: [value('memoryBytes', 'bytes'), 'Address space of each process (RLIMIT_AS).'],
  cpuSeconds: [value('cpuSeconds', 'seconds'), 'CPU time of each process (RLIMIT_CPU): SIGXCPU, then SIGKILL 5 s later.'],
  fileSizeBytes: [value('fileSizeBytes', 'bytes'), 'Largest file a process may write (RLIMIT_FSIZE).'],
  openFiles: [value('openFiles', 'files'), 'Open file descriptors of each process (RLIMIT_NOFILE).'],
} as const

type Shape<T> = { [K in keyof ResourceLimits]: T }
const map = <T>(make: (key: keyof ResourceLimits) => T) =>
  Object.fromEntries(Object.keys(described).map((key) => [key, make(key as keyof ResourceLimits)])) as Shape<T>

/** The keys of `limits` in a shell provider's config, with the defaults (wrap in strictConfig: a typo is an error). */
export const limitsShape = map((key) => described[key][0].default(DEFAULT_LIMITS[key]).describe(described[key][1]))
/** The same keys, each optional: overrides of the provider's limits (jobs, hooks). */
export const limitOverridesShape = map((key) => described[key][0].optional().describe(described[key][1]))

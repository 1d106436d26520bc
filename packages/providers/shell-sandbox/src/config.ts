import { Config as ShellLocalConfig } from '@dshkit/shell-local'
import { strictConfig } from '@dshkit/common'
import { workspaceShape } from '@dshkit/workspace'
import { z } from 'zod'

// The workspace's fields (and defaults), the very ones fs-sandbox takes, so one config object confines both the same way.
const { roots, readOnlyRoots, deny } = workspaceShape
// And shell-local's command defaults, so switching providers keeps the same keys.
const { env, inheritEnv, defaultTimeoutMs, maxOutputBytes, graceMs, limits } = ShellLocalConfig.unwrap().shape

export const Config = strictConfig({
  roots: roots.describe("Writable directories, as fs-sandbox's `roots` (pass fs-sandbox's config; dsh-base does)."),
  readOnlyRoots: readOnlyRoots.describe("Directories mounted read-only even inside a root, as fs-sandbox's `readOnlyRoots`."),
  deny: deny.describe("fs-sandbox's deny globs: matching files and folders are hidden from every command."),
  network: z.boolean().default(false).describe("Let commands reach the network (the host's network namespace); default: no network at all, not even loopback."),
  cwd: z.string().min(1, 'cwd must be a directory path').optional().describe('Default working directory of commands; default: the first root.'),
  shell: z
    .string()
    .min(1, 'shell must be a program path')
    .optional()
    .describe('The shell that runs `-c <command>` inside the sandbox; default /bin/bash, else /bin/sh.'),
  env,
  inheritEnv,
  defaultTimeoutMs,
  maxOutputBytes,
  graceMs,
  whenUnavailable: z
    .enum(['fail-start', 'refuse-commands'])
    .default('fail-start')
    .describe(
      "When bubblewrap cannot confine commands: 'fail-start' stops the start with the reason; 'refuse-commands' starts with one warning and refuses every command with the reason, so the other tools still work. Never unconfined.",
    ),
  limits,
  changes: z
    .enum(['transaction', 'direct'])
    .default('transaction')
    .describe(
      "'transaction': each call runs on a copy-on-write view of the roots and its changes are judged (as fs tools' writes) before they land; 'direct': commands write straight into the roots. Where no copy-on-write view can be had, transaction mode refuses to start (or, with whenUnavailable: refuse-commands, refuses commands).",
    ),
  maxChangeBytes: z
    .number()
    .int('maxChangeBytes must be a whole number of bytes')
    .min(65536, 'maxChangeBytes must be at least 65536')
    .default(1024 ** 3)
    .describe(
      'Transaction mode: the most bytes one call may write (a tmpfs of this size holds them); past it the call sees ENOSPC and none of its changes land.',
    ),
  maxChangedFiles: z
    .number()
    .int('maxChangedFiles must be a whole number')
    .positive('maxChangedFiles must be positive')
    .default(100_000)
    .describe('Transaction mode: the most files and folders one call may create, change or delete; past it none of its changes land.'),
  bwrapPath: z.string().min(1, 'bwrapPath must be a program name or path').default('bwrap').describe('The bubblewrap binary.'),
  denyScanLimit: z
    .number()
    .int('denyScanLimit must be a whole number')
    .positive('denyScanLimit must be positive')
    .default(50_000)
    .describe('Most directory entries one launch may look at to find deny-glob matches; past it the command is refused, never run unhidden.'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

import type { JobOwner } from '@dshkit/jobs'
import type { ShellService } from '@dshkit/shell'
import { DEFAULT_LIMITS, limitMessage } from '@dshkit/process'
import { defineTool, joinText } from '@dshkit/tools'
import { z } from 'zod'
import type { Config } from './config.js'
import { renderShell, type ShellToolValue } from './render.js'
import { isBackground, renderBackground, startBackground, type BackgroundValue } from './background.js'

// Past the command's own deadline the seam still needs the kill grace; timeout-policy's deadline is only a backstop.
const BACKSTOP_MARGIN_MS = 30_000

export function shellTool(shell: () => ShellService, config: Config, jobs: () => JobOwner | undefined = () => undefined) {
  return defineTool({
    name: 'shell',
    description:
      'Run a shell command line (bash -c: pipes, &&, redirections and quoting work) and get its exit code, stdout and stderr. ' +
      (config.nonZeroExit === 'error'
        ? 'A non-zero exit code makes the call fail (its output is still shown). '
        : 'A non-zero exit code is reported, not treated as a failure. ') +
      'Each call starts a fresh shell in cwd: `cd` and variables do not carry over. ' +
      `Output keeps the last part of each stream when it is long. Commands are killed, with everything they started, after timeoutMs (default ${config.defaultTimeoutMs} ms).`,
    parameters: z.object({
      command: z.string().min(1, 'command must not be empty').describe('The command line to run.'),
      cwd: z
        .string()
        .min(1, 'cwd must not be empty')
        .optional()
        .describe("Working directory, absolute or relative to the shell's working directory (the default)."),
      timeoutMs: z
        .number()
        .int('timeoutMs must be a whole number of milliseconds')
        .min(1, 'timeoutMs must be at least 1 ms')
        .max(config.maxTimeoutMs, `timeoutMs must be at most ${config.maxTimeoutMs} ms`)
        .optional()
        .describe(`Deadline in milliseconds (default ${config.defaultTimeoutMs}, at most ${config.maxTimeoutMs}).`),
      description: z
        .string()
        .max(500, 'description must be at most 500 characters')
        .optional()
        .describe('What the command does, in a few words, for the person watching.'),
      background: z
        .boolean()
        .optional()
        .describe(
          'Run it as a background job and answer at once with its job id (for servers, watchers, long builds); no deadline unless timeoutMs is given. Read it with job_output.',
        ),
    }),
    idempotent: false,
    timeoutMs: config.maxTimeoutMs + BACKSTOP_MARGIN_MS,
    render: (value: ShellToolValue | BackgroundValue) => (isBackground(value) ? renderBackground(value) : renderShell(value)),
    async execute(args, run): Promise<ShellToolValue | BackgroundValue> {
      if (args.background) return startBackground(jobs(), args, run)
      const timeoutMs = args.timeoutMs ?? config.defaultTimeoutMs
      const result = await shell().run({ command: args.command, cwd: args.cwd, timeoutMs, signal: run.signal })
      // Cancelled from outside (the caller, timeout-policy): the pipeline reports that, not a half result.
      if (run.signal.aborted) throw run.signal.reason
      if (result.error) throw Object.assign(new Error(result.error), { retryable: false })
      const value: ShellToolValue = {
        exitCode: result.exitCode,
        signal: result.signal,
        stdout: result.stdout.text,
        stderr: result.stderr.text,
        droppedBytes: { stdout: result.stdout.droppedBytes, stderr: result.stderr.droppedBytes },
        durationMs: Math.round(result.durationMs),
        timeoutMs,
        timedOut: result.timedOut,
        sandboxed: result.sandboxed,
        ...(result.limit ? { limit: limitMessage(result.limit, shell().defaults.limits ?? DEFAULT_LIMITS) } : {}),
      }
      // The model reads the same text either way; only whether the call failed changes.
      if (config.nonZeroExit === 'error' && value.exitCode !== 0) throw Object.assign(new Error(joinText(renderShell(value))), { retryable: false })
      return value
    },
  })
}

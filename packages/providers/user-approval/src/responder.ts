import type { Context } from 'cordis'
import type { ShellFacts } from './shell-call.js'
import { TtyResponder } from './tty.js'
import type { Responder } from '@dshkit/approval'

/** Who answers an ask when no programmatic responder does, as the options choose it. */
export interface ConfiguredResponder {
  kind: 'headless' | 'tty'
  respond: Responder
  tty?: TtyResponder
}

export interface ResponderOptions {
  responder: 'auto' | 'headless' | 'tty'
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
}

/** The terminal when there is one (or it is asked for); otherwise a headless responder that denies, saying why. */
export function configuredResponder(ctx: Context, options: ResponderOptions): ConfiguredResponder {
  const [kind, why] = chooseResponder(options)
  if (kind === 'tty') {
    const tty = new TtyResponder({ input: options.input, output: options.output, shell: () => ctx.get('shell') as ShellFacts | undefined })
    return { kind, respond: tty.respond, tty }
  }
  const reason = `no one can approve here (${why}); run in a terminal, or add an allow rule`
  return { kind, respond: () => ({ kind: 'deny', reason }) }
}

function chooseResponder({ responder, input, output }: ResponderOptions): ['headless' | 'tty', string] {
  if (responder === 'headless') return ['headless', "responder: 'headless'"]
  if (responder === 'tty') return ['tty', "responder: 'tty'"]
  const inTty = (input ?? (process.stdin as NodeJS.ReadableStream & { isTTY?: boolean })) as { isTTY?: boolean }
  const outTty = (output ?? process.stdout) as { isTTY?: boolean }
  if (!inTty.isTTY) return ['headless', 'headless: stdin is not a terminal']
  if (!outTty.isTTY) return ['headless', 'headless: stdout is not a terminal']
  return ['tty', 'stdin and stdout are a terminal']
}

import type { Context } from 'cordis'
import Server from '@cordisjs/plugin-server'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { ApprovalWeb } from './service.js'

export { Config, type ConfigInput } from './config.js'
export { ApprovalWeb }
export type { AskView } from './view.js'
export type { EndedView, Outcome } from './board.js'

export const name = 'approval-web'

// An arrow: cordis calls a `function` with `new` and would lose a returned disposer.
export const apply = async (ctx: Context, input?: ConfigInput) => {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  // The page gets its own server, private to this plugin: another plugin's ctx.server is neither taken nor exposed.
  const scope = ctx.isolate('server')
  try {
    await scope.plugin(Server, { host: config.host, port: config.port })
  } catch (error) {
    throw new Error(`approval-web: cannot listen on ${config.host}:${config.port} (${(error as Error).message}); choose another port, or port 0 for any free one`)
  }
  scope.plugin(ApprovalWeb, config)
}

export default definePlugin({ name, inject: ['approval'], Config, apply })

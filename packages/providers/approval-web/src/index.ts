import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { Endpoint } from './endpoint.js'
import { ApprovalWeb } from './service.js'

export { Config, type ConfigInput } from './config.js'
export { ApprovalWeb, type ApprovalWebOptions } from './service.js'
export type { AskView } from './view.js'
export type { EndedView, Outcome } from './board.js'

export const name = 'approval-web'

export const apply = async (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  // The page gets its own server (node:http + ws), private to this plugin: no ctx.server is taken or exposed.
  const endpoint = new Endpoint(config.host, config.port)
  try {
    await endpoint.listen(ctx)
  } catch (error) {
    throw new Error(
      `approval-web: cannot listen on ${config.host}:${config.port} (${(error as Error).message}); choose another port, or port 0 for any free one`,
    )
  }
  ctx.plugin(ApprovalWeb, { ...config, endpoint })
}

export default definePlugin({ name, inject: ['approval'], Config, apply })

import { definePlugin } from '@dshkit/tools'
import { Config } from './config.js'
import { apply, inject, name } from './plugin.js'

export { McpClientService, type ServerStatus } from './service.js'
export type { ServerState } from './connection.js'
export { McpCallError } from './errors.js'
export { qualifiedName, sanitizeName } from './names.js'
export { compileSchema, parametersFor, hardenedValidator } from './schema.js'
export { SCHEMA_LIMITS } from './schema-limits.js'
export { toBlocks, toValue, type McpValue } from './results.js'
export type { AuthorizeHandler, AuthorizeRequest, OAuthOptions } from './oauth-config.js'
export { Config, type ConfigInput, type ServerConfig, DEFAULT_TIMEOUT_MS } from './config.js'
export { apply, inject, name }

export default definePlugin({ name, inject, Config, apply })

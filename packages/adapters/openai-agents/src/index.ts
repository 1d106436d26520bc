export { dshkitAgentTools, dshkitToolUseBehavior, runStop, type DshkitAgentToolsOptions } from './tools.js'
export type { AgentToolOutput } from './output.js'
export { DshkitToolError } from '@dshkit/agent-loop'

export { dshkitAgentTools, dshkitToolUseBehavior, type DshkitAgentToolsOptions } from './tools.js'
export { DshkitToolError, type AgentToolOutput } from './output.js'

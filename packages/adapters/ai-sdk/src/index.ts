export { dshkitTools, sessionStop, turnConcluded, type DshkitToolsOptions } from './tools.js'
export type { DshkitToolOutput } from './output.js'
export { DshkitToolError } from '@dshkit/agent-loop'

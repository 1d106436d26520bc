export { dshkitTools, turnConcluded, type DshkitToolsOptions } from './tools.js'
export { DshkitToolError, type DshkitToolOutput } from './output.js'

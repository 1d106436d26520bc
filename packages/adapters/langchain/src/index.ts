export { dshkitLangChainTools, runToolCalls, type DshkitLangChainToolsOptions } from './tools.js'
export { toolMessage } from './messages.js'

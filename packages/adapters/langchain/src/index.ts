export { dshkitLangChainTools, runToolCalls, type DshkitLangChainToolsOptions } from './tools.js'
export { sessionStop, toolMessage } from './messages.js'

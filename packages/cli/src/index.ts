export { main, cliPath } from './main.js'
export { readCalls, resolveReferences } from './calls.js'

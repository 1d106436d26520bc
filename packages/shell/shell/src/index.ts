export * from './service.js'
export { groupAlive, groupMembers, reapTree, runMarker } from './reap.js'

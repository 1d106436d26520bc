// The one event the workspace's two guards share: shell-sandbox emits it, fs-sandbox listens (`Sandbox.coverMoved`).
import './events.js'
export { DEFAULT_DENY, pathList, WORKSPACE_KEYS, WorkspaceConfig, type WorkspaceConfigInput, workspaceShape } from './config.js'
export { Sandbox, type SandboxRules } from './sandbox.js'
export {
  ACCEPTED_HOOKS,
  GRANTS_DIR,
  GRANTS_GLOB,
  HOOK_SETTINGS,
  pinnedFolders,
  policyFiles,
  type PolicyFileSources,
  policyGlobs,
  realPath,
  recordPaths,
  refuseLinkedPolicyFiles,
  spellingsOf,
  withDeny,
} from './policy-files.js'
export { grantsFileIn, writableGrants } from './grants.js'

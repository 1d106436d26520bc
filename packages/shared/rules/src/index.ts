// The rule language: the schema a rule is written in, how it compiles and matches a call, a shell line and a change.
export { Rule } from './schema.js'
export {
  argumentText,
  argumentValue,
  compileRule,
  describeRule,
  globProblem,
  ruleMessage,
  type CompiledRule,
  type Decision,
  type PathForm,
  type PathLookup,
} from './rules.js'
export { braceAlternatives } from './braces.js'
export { declares, type Declared } from './declared.js'
export { checkRule, type RuleCheck, type ToolView } from './rule-check.js'
export { pathArguments, redirectTargets } from './paths.js'
export { PermissionRules, type BrokenRule, type Verdict } from './verdict.js'
export type { TargetLookup } from './shell-line.js'
export { checkGrantRule, matchableRule } from './grant-rule.js'

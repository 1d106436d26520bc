import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Context } from 'cordis'

type Disposer = () => void
export type PluginApply<Config> = (ctx: Context, config: Config) => void | Disposer | Promise<void | Disposer>

/** The one plugin shape every dshkit package exports. */
export interface PluginDefinition<S extends StandardSchemaV1 = StandardSchemaV1> {
  name: string
  inject?: readonly string[]
  /** A strict schema (see `strictConfig`): an unknown key is an error, never a silently dropped protection. */
  Config: S
  /** An arrow function: cordis calls a `function` declaration with `new` and loses the disposer it returns. */
  apply: PluginApply<StandardSchemaV1.InferOutput<S>>
}

/** What `definePlugin` returns: cordis validates the config into the schema's output before `apply`. */
export interface DefinedPlugin<S extends StandardSchemaV1 = StandardSchemaV1> extends Omit<PluginDefinition<S>, 'apply'> {
  // Typed with the schema's input, so `ctx.plugin(plugin, { ... })` checks what a user may pass.
  apply: (ctx: Context, config?: StandardSchemaV1.InferInput<S>) => ReturnType<PluginApply<unknown>>
}

const PROBE = 'dshkitUnknownKeyProbe'

/**
 * Checks a plugin's shape where it is defined (at module load) and returns it typed: a name, an optional
 * `inject` list, a strict `Config`, and an `apply` cordis will not call with `new`.
 */
export function definePlugin<S extends StandardSchemaV1>(plugin: PluginDefinition<S>): DefinedPlugin<S> {
  const label = typeof plugin?.name === 'string' && plugin.name ? `plugin "${plugin.name}"` : 'definePlugin()'
  if (!plugin || typeof plugin !== 'object') throw new TypeError('definePlugin() needs { name, inject?, Config, apply }')
  if (typeof plugin.name !== 'string' || !plugin.name) throw new TypeError(`${label}: name must be a non-empty string`)
  if (plugin.inject !== undefined && !(Array.isArray(plugin.inject) && plugin.inject.every((key) => typeof key === 'string'))) {
    throw new TypeError(`${label}: inject must be a list of service names, e.g. ['tools']`)
  }
  if (typeof plugin.apply !== 'function') throw new TypeError(`${label}: apply must be a function (ctx, config) => dispose?`)
  // Arrow functions and methods have no prototype; a `function` declaration or a class does, and cordis would `new` it.
  if (plugin.apply.prototype !== undefined) {
    throw new TypeError(
      `${label}: apply is a \`function\` declaration, which cordis calls with \`new\`, losing the disposer it returns; write it as an arrow: export const apply = (ctx, config) => { ... }`,
    )
  }
  checkStrict(label, plugin.Config)
  return plugin as unknown as DefinedPlugin<S>
}

function checkStrict(label: string, schema: StandardSchemaV1) {
  const validate = schema?.['~standard']?.validate
  if (typeof validate !== 'function') throw new TypeError(`${label}: Config must be a Standard Schema (build it with strictConfig from @dshkit/tools)`)
  const outcome = validate({ [PROBE]: true })
  if (typeof (outcome as Promise<unknown>)?.then === 'function') return // an async schema: cannot be probed at load
  const issues = (outcome as StandardSchemaV1.Result<unknown>).issues ?? []
  const refused = issues.some((issue) => issue.path?.some((part) => (typeof part === 'object' ? part.key : part) === PROBE) || issue.message.includes(PROBE))
  if (!refused)
    throw new TypeError(`${label}: Config accepts unknown keys, so a typo would be dropped silently; build it with strictConfig({ ... }) from @dshkit/tools`)
}

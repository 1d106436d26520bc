import { Context, Service, type Hook } from 'cordis'
import { z } from 'zod'
import { errorMessage } from '@dshkit/common'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { checkDefinition } from './define.js'
import { listenerNames, type PipelineState, type RegisteredGuard } from './phase.js'
import { runPipeline } from './pipeline.js'
import type { RegisteredTool } from './prepare.js'
import { explainCall, type Explanation } from './explain.js'
import { Config, type ConfigInput } from './config.js'
import { prepareCall, publish } from './prepare.js'
import { listenerLists, TOOL_EVENTS, type ToolEvent } from './listeners.js'
import { whenStarted, type Waiters } from './started.js'
import type {
  DispatchOptions,
  ExecuteInput,
  JsonValue,
  JsonValueCheck,
  PostToolDecision,
  PreparedCall,
  PreToolDecision,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
  ToolGuard,
  ToolProgress,
  ToolSchema,
  SampleRequest,
  SampleResult,
  ElicitRequest,
  ElicitResult,
} from './types.js'

declare module 'cordis' {
  interface Context {
    tools: ToolRuntime
  }
  interface Events {
    'tools/pre-execute'(exec: ToolExecution, next: () => Promise<PreToolDecision>): Promise<PreToolDecision>
    'tools/execute'(exec: ToolExecution, next: (options?: DispatchOptions) => Promise<ToolExecutionResult>): Promise<ToolExecutionResult>
    /**
     * `result` is what this layer started from (the body's result or the denial); `next()` runs the inner
     * listeners and resolves with the result after their decisions applied (frozen). Return that very
     * object or `{ kind: 'accept' }` to keep it; the runtime applies any other decision to it.
     */
    'tools/post-execute'(
      exec: ToolExecution,
      result: Readonly<ToolExecutionResult>,
      next: () => Promise<Readonly<ToolExecutionResult>>,
    ): Promise<PostToolDecision | Readonly<ToolExecutionResult>>
    'tools/result'(exec: ToolExecution, result: Readonly<ToolExecutionResult>): void
    /** A running body's `run.progress()` report (checked, frozen); observe only: a listener's throw is logged, never the tool's. */
    'tools/progress'(exec: ToolExecution, report: ToolProgress): void
    /**
     * A running body's `run.sample()` (checked JSON): the listener that owns the call (mcp-server, for its client's
     * calls) resolves with the client's answer or rejects saying what is missing; others return undefined. Serial.
     */
    'tools/sample'(exec: ToolExecution, request: SampleRequest, signal: AbortSignal): Promise<SampleResult | undefined> | undefined
    /** A running body's `run.elicit()`, served like `tools/sample`. */
    'tools/elicit'(exec: ToolExecution, request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult | undefined> | undefined
  }
}

/** The `tools` service: registry, guards and the execution pipeline. */
export class ToolRuntime extends Service {
  private readonly state: PipelineState
  /**
   * Live name → definition view for hot paths: reading a plain property skips the per-call method
   * proxy cordis builds for `get()` (~20 µs), so wrappers look definitions up here.
   */
  readonly definitions: ReadonlyMap<string, ToolDefinition> = new Map()
  /** Runs one call (raw, or prepared by `prepare()`) through the pipeline. Never throws; resolves to one deep-frozen result. */
  readonly execute: (input: ExecuteInput | PreparedCall) => Promise<ToolExecutionResult>
  /**
   * Snapshots and validates a call once (or carries why it cannot run), so a scheduler can read
   * `input` (e.g. for `isConcurrencySafe`) and then `execute()` it without validating again.
   * Never rejects. A call prepared against a tool that was since replaced is prepared again on execute.
   */
  readonly prepare: (input: ExecuteInput) => Promise<PreparedCall>
  /**
   * What a call would meet before anything runs: validation, pre-execute listeners (they see `exec.dryRun === true`),
   * guards and the approval that would be asked (not asked). Runs no wrapper, body, post-execute listener, finalizer
   * or observer. Never rejects: resolves to `{ decision, arguments, trace, … }` (see Explanation).
   */
  readonly explain: (input: ExecuteInput | PreparedCall) => Promise<Explanation>
  /** Each definition's JSON Schema as JSON text: parsed per call, so every caller gets plain, unshared objects. */
  private readonly schemaCache = new WeakMap<ToolDefinition, string>()
  private readonly watchers = new Set<(def: ToolDefinition) => void>()
  private readonly waiters: Waiters = new Set()

  constructor(ctx: Context, input?: ConfigInput) {
    super(ctx, 'tools')
    const config = Config.parse(input)
    // cordis's own rule for a service's events (`hook.global || service[Context.filter](hook.ctx)`), judged
    // once per listener: a listener's scope never changes after it is registered.
    const scope = new WeakMap<Hook, boolean>()
    const inScope = (hook: Hook) => {
      let verdict = scope.get(hook)
      if (verdict === undefined) scope.set(hook, (verdict = !!hook.global || this[Context.filter](hook.ctx) === true))
      return verdict
    }
    const state: PipelineState = (this.state = {
      tools: new Map<string, RegisteredTool>(),
      guards: new Set<RegisteredGuard>(),
      bounders: new Set(),
      hooks: listenerLists(ctx),
      inScope,
      scoped: { changes: -1, lists: {} },
      reports: {},
      approval: () => ctx.get('approval'),
      logger: ctx.logger('tools'),
      // With the service as `this`, cordis applies its scope (isolation) to the listeners, as for its other events.
      progress: (exec, report) => ctx.emit(this, 'tools/progress', exec, report),
      clientRequest: (kind, exec, request, signal) =>
        kind === 'sample'
          ? ctx.serial(this, 'tools/sample', exec, request as SampleRequest, signal)
          : ctx.serial(this, 'tools/elicit', exec, request as ElicitRequest, signal),
      trace: config.trace,
    })
    // An own closure, so the hot path never reads `this` through cordis's service proxy.
    this.execute = (input) => runPipeline(state, input)
    this.prepare = async (input) => publish(await prepareCall(state.tools, input), input)
    this.explain = (input) => explainCall(state, input)
  }

  /** Adds a tool for as long as the calling plugin lives. */
  register<S extends StandardSchemaV1, Value = JsonValue>(
    tool: ToolDefinition<StandardSchemaV1.InferOutput<S>, Value> & { parameters: S } & JsonValueCheck<Value>,
  ): () => void {
    // Generic like defineTool, so an inline definition's `execute(args)` is typed from its schema.
    const def = tool as unknown as ToolDefinition
    checkDefinition(def)
    const { tools } = this.state
    const taken = tools.get(def.name)
    if (taken) throw new Error(`tool "${def.name}" is already registered by ${taken.source}; tool names must be unique`)
    const entry: RegisteredTool = { def, source: this.ctx.fiber.name }
    const definitions = this.definitions as Map<string, ToolDefinition>
    const dispose = this.ctx.effect(() => {
      tools.set(def.name, entry)
      definitions.set(def.name, def)
      for (const watcher of this.watchers) watcher(def)
      return () => {
        if (tools.get(def.name) !== entry) return
        tools.delete(def.name)
        definitions.delete(def.name)
      }
    }, `tools.register(${def.name})`)
    return () => void dispose()
  }

  /**
   * Calls `listener(def)` after each tool registers from now on (tools that come late: MCP servers connecting), for as
   * long as the calling plugin lives. A listener that throws is logged; the registration stands.
   */
  onRegister(listener: (def: ToolDefinition) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('onRegister() needs a function (def) => void')
    const logger = this.state.logger
    const watcher = (def: ToolDefinition) => {
      try {
        listener(def)
      } catch (error) {
        logger.error(`an onRegister listener of ${source} failed on tool "${def.name}": ${errorMessage(error)}`)
      }
    }
    const source = this.ctx.fiber.name
    const dispose = this.ctx.effect(() => {
      this.watchers.add(watcher)
      return () => void this.watchers.delete(watcher)
    }, 'tools.onRegister()')
    return () => void dispose()
  }

  /**
   * Resolves once the plugins started beside the caller have finished starting, so their tools are registered
   * (a plugin checking names against the registry awaits it in its apply). Plugins that wait here themselves, and the
   * plugins above them, are not waited for.
   */
  whenStarted(): Promise<void> {
    return whenStarted(this.ctx, this.waiters)
  }

  /**
   * Declares that the calling plugin bounds the size of every result's output (spill-policy does), for as
   * long as it lives; inner caps (the pruner's) read `outputBounded` and leave the bounding to it.
   */
  boundsOutput(): () => void {
    const { bounders } = this.state
    const entry = { source: this.ctx.fiber.name }
    const dispose = this.ctx.effect(() => {
      bounders.add(entry)
      return () => void bounders.delete(entry)
    }, 'tools.boundsOutput()')
    return () => void dispose()
  }

  /** Whether a live plugin declared `boundsOutput()`. */
  get outputBounded(): boolean {
    return this.state.bounders.size > 0
  }

  /** Adds a monotonic guard for as long as the calling plugin lives. */
  guard(guard: ToolGuard): () => void {
    if (typeof guard !== 'function') throw new TypeError('guard() needs a function (exec) => reason | undefined')
    const { guards } = this.state
    const entry: RegisteredGuard = { guard, source: this.ctx.fiber.name }
    const dispose = this.ctx.effect(() => {
      guards.add(entry)
      return () => void guards.delete(entry)
    }, 'tools.guard()')
    return () => void dispose()
  }

  /** The plugins listening to a tools/* event in this runtime's scope, outermost first (the order they run in). */
  listeners(event: ToolEvent): string[] {
    if (!TOOL_EVENTS.includes(event)) throw new TypeError(`listeners() takes one of ${TOOL_EVENTS.join(', ')}; got ${JSON.stringify(event)}`)
    return listenerNames(this.state, event)
  }

  get(name: string): ToolDefinition | undefined {
    return this.state.tools.get(name)?.def
  }

  list(): ToolDefinition[] {
    return [...this.state.tools.values()].map((entry) => entry.def)
  }

  /** Name, description and JSON Schema of every tool, as a model API wants them. */
  schemas(): ToolSchema[] {
    return this.list().map((def) => ({ name: def.name, description: def.description, inputSchema: this.jsonSchema(def) }))
  }

  private jsonSchema(def: ToolDefinition): Record<string, unknown> {
    let text = this.schemaCache.get(def)
    if (text === undefined) {
      let schema: unknown
      try {
        schema = z.toJSONSchema(def.parameters as z.ZodType, { io: 'input', unrepresentable: 'any' })
      } catch {
        schema = { type: 'object' } // a non-zod Standard Schema: we cannot describe it further
      }
      // Through JSON: zod hangs a hidden `~standard` on the object, and frameworks that spot it treat the schema as zod's.
      text = JSON.stringify(schema)
      this.schemaCache.set(def, text)
    }
    return JSON.parse(text)
  }
}

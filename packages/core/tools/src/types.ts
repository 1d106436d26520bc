import type { StandardSchemaV1 } from '@standard-schema/spec'

import type { JsonValue } from '@dshkit/common'
export type { JsonValue }

/**
 * `T` itself when every part of it survives JSON (interfaces included: no index signature needed);
 * a function, Date, Map, bigint, symbol or an `undefined` array item turns that part into `never`, so `T` no longer fits.
 * An object field may be optional or `undefined`: the runtime drops it, as JSON.stringify does.
 */
export type JsonCompatible<T> = T extends null | boolean | number | string
  ? T
  : T extends bigint | symbol | undefined | ((...args: never[]) => unknown)
    ? never
    : T extends readonly unknown[]
      ? { [K in keyof T]: JsonCompatible<T[K]> }
      : T extends object
        ? { [K in keyof T]: JsonCompatibleField<T[K]> }
        : never

/**
 * Intersected with a tool definition by defineTool/register: nothing when `Value` is JSON-compatible, else a
 * required key whose name says what is wrong (a generic constraint cannot refer to itself through a conditional type).
 */
export type JsonValueCheck<Value> = [Value] extends [JsonValue | void]
  ? unknown
  : [Value] extends [JsonCompatible<Value>]
    ? unknown
    : { 'execute returns a function, Date, bigint or another non-JSON value: return plain data': never }

type JsonCompatibleField<T> = undefined extends T ? JsonCompatible<T> | undefined : JsonCompatible<T>

export type ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceBlock | ResourceLinkBlock

export type TextBlock = {
  type: 'text'
  text: string
}

/** `data` is base64. */
export type ImageBlock = {
  type: 'image'
  data: string
  mimeType: string
}

/** `data` is base64. */
export type AudioBlock = {
  type: 'audio'
  data: string
  mimeType: string
}

/** A resource's contents embedded in the result: `text`, or `blob` (base64). */
export type EmbeddedResource = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string }

export type ResourceBlock = {
  type: 'resource'
  resource: EmbeddedResource
}

/** A pointer to a resource the client may read; its contents are not in the result. */
export type ResourceLinkBlock = {
  type: 'resource_link'
  uri: string
  name: string
  mimeType?: string
  description?: string
}

/** A message injected after the batch's results (FIFO, model order). */
export interface ContextMessage {
  source: string
  content: ContentBlock[]
}

export interface ToolExecution {
  readonly token: symbol
  readonly callId: string
  readonly name: string
  /** The raw JSON snapshot the model sent (deep-frozen), for logs, hooks and approval display. */
  readonly arguments: Readonly<JsonValue>
  /**
   * What the tool's `parameters` made of `arguments` (deep-frozen): what policies and guards read.
   * Undefined on a call that failed before validation (UNKNOWN_TOOL, INVALID_ARGS). Narrow it with `isCallOf`.
   */
  readonly input: unknown
  readonly signal: AbortSignal
  readonly parent?: symbol
  /**
   * `true` while `ctx.tools.explain()` judges the call: nothing will run, and no approval is asked. A listener
   * with side effects (running a command, notifying someone, writing a file) must check it and skip them.
   * Absent on every real call.
   */
  readonly dryRun?: true
}

/**
 * Per-tool input types, by tool name, for `isCallOf`. Augment it where a tool is defined:
 * `declare module '@dshkit/tools' { interface ToolInputs { fs_write: { path: string; content: string } } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins add their tools' inputs by declaration merging
export interface ToolInputs {}

/** An execution of the tool `Name`, its `input` typed from `ToolInputs`. */
export type ToolCallOf<Name extends keyof ToolInputs> = ToolExecution & { readonly name: Name; readonly input: Readonly<ToolInputs[Name]> }

/** A call validated once by `ctx.tools.prepare()`: pass it to `execute()`; nobody validates it again. */
export interface PreparedCall {
  readonly callId: string
  readonly name: string
  /** The raw JSON snapshot (null when the arguments were not JSON). */
  readonly arguments: Readonly<JsonValue>
  /** The validated, deep-frozen input; undefined when `failure` is set. */
  readonly input: unknown
  /** The definition it was validated against; undefined for an unknown tool. */
  readonly definition: ToolDefinition | undefined
  /** Why it cannot run (UNKNOWN_TOOL, INVALID_ARGS, a bad signal): what `execute()` will resolve with. */
  readonly failure: ToolFailure | undefined
  readonly signal: AbortSignal | undefined
  readonly parent: symbol | undefined
}

/** @deprecated `tools/execute` wrappers get a frozen `ToolExecution` and pass a signal with `next({ signal })`. */
export type ToolDispatchExecution = ToolExecution

/** What a `tools/execute` wrapper may pass to `next()`. */
export interface DispatchOptions {
  /** Aborts the layers inside (and the body) too; fused with the signal this layer got, never replacing it. */
  signal?: AbortSignal
}

export interface ToolRunContext extends ToolExecution {
  /** Queue a message to inject after the batch's results. */
  deferContext(message: ContextMessage): void
  /** Mark that this call completes the user's request (see `concludesTurn`). */
  concludeTurn(): void
  /**
   * Reports how far the call got (e.g. 2 of 5 files), as a `tools/progress` event (an MCP client sees
   * `notifications/progress`). Never throws; a no-op when nobody listens or once the body settled; a
   * non-finite number or a non-string message is ignored with one logged warning.
   */
  progress(progress: number, total?: number, message?: string): void
  /**
   * Asks whoever made this call to run its model on `request` (MCP `sampling/createMessage`), through the
   * `tools/sample` event. Rejects with `<tool>: sampling …` when the request is bad (over 1 MiB of JSON too),
   * nobody serves it (not an MCP call, or the client did not declare `sampling`), or the call is aborted.
   */
  sample(request: SampleRequest): Promise<SampleResult>
  /** Asks the user of whoever made this call to fill in a form (MCP `elicitation/create`), through `tools/elicit`; rejects like `sample`. */
  elicit(request: ElicitRequest): Promise<ElicitResult>
}

/** A body's sampling request, MCP's `sampling/createMessage` params (other MCP fields pass through as given). */
export interface SampleRequest {
  messages: { role: 'user' | 'assistant'; content: JsonValue }[]
  maxTokens: number
  systemPrompt?: string
  temperature?: number
  stopSequences?: string[]
  [key: string]: JsonValue | undefined
}

/** The client's answer to a sampling request (frozen). */
export interface SampleResult {
  readonly role: 'user' | 'assistant'
  readonly content: JsonValue
  readonly model: string
  readonly stopReason?: string
  readonly [key: string]: unknown
}

/** A body's form question, MCP's `elicitation/create` params in form mode. */
export interface ElicitRequest {
  message: string
  requestedSchema: { type: 'object'; properties: Record<string, JsonValue>; required?: string[] }
}

/** The user's answer (frozen); `content` only with `accept`. */
export interface ElicitResult {
  readonly action: 'accept' | 'decline' | 'cancel'
  readonly content?: Readonly<Record<string, string | number | boolean | string[]>>
  readonly [key: string]: unknown
}

/** One progress report of a running body (`run.progress()`), frozen. */
export interface ToolProgress {
  progress: number
  total?: number
  message?: string
}

/** `Value` is what execute returns: any JSON-compatible type, an interface too (see `JsonCompatible`). */
export interface ToolDefinition<Args = any, Value = JsonValue> {
  name: string
  description: string
  parameters: StandardSchemaV1<unknown, Args>
  execute(args: Args, run: ToolRunContext): Value | void | Promise<Value | void>
  render?(value: Value, args: Args): ContentBlock[]
  finalizeContent?(exec: ToolExecution, result: ToolExecutionResult): ContentBlock[] | undefined
  timeoutMs?: number
  idempotent?: boolean
  isConcurrencySafe?(args: Args): boolean
  fsAccess?(args: Args): FsAccess[]
}

export interface FsAccess {
  path: string
  access: 'read' | 'write'
}

export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'INVALID_ARGS'
  | 'DENIED'
  | 'ABORTED_BEFORE_DISPATCH'
  | 'ABORTED'
  | 'TOOL_ERROR'
  | 'TOOL_TIMEOUT'
  | 'BLOCKED'
  | 'INVALID_RESULT'
  | 'PIPELINE_ERROR'
  | 'TOOL_OUTCOME_UNKNOWN'

export interface ToolError {
  code: ToolErrorCode
  message: string
  source?: string
}

/** A request to end the session (a hook's `continue: false`): no later call of the batch runs, and the harness ends the turn. */
export interface ToolStop {
  /** Why, for people (a hook's `stopReason`). */
  reason: string
  /** Who asked (e.g. `hooks-claude-code: ./kill.sh`). */
  by: string
}

export type ToolExecutionResult =
  | {
      isError: false
      value: JsonValue
      content: ContentBlock[]
      meta?: Record<string, JsonValue>
      additionalContexts?: ContextMessage[]
      concludesTurn?: boolean
      stop?: ToolStop
    }
  | {
      isError: true
      error: ToolError
      content: ContentBlock[]
      meta?: Record<string, JsonValue>
      additionalContexts?: ContextMessage[]
      stop?: ToolStop
    }

export type ToolSuccess = Extract<ToolExecutionResult, { isError: false }>
export type ToolFailure = Extract<ToolExecutionResult, { isError: true }>

export type PreToolDecision =
  | {
      kind: 'allow'
      /**
       * New arguments for the call (e.g. a hook's `updatedInput`). They are validated by the tool's `parameters`
       * and the whole pre-execute judgement (every listener, every guard, approval) starts over with them;
       * INVALID_ARGS names `source` when they do not fit. Equal to the current arguments = a plain allow.
       */
      updatedArguments?: JsonValue
      /** Who rewrote the arguments; defaults to the listener's plugin. Recorded in `meta.argumentsRewrittenBy`. */
      source?: string
      detail?: TraceDetail
    }
  | { kind: 'deny'; reason: string; source?: string; detail?: TraceDetail; stop?: ToolStop }
  | { kind: 'ask'; reason?: string; source?: string; detail?: TraceDetail }

/**
 * Why a listener or guard decided what it did, for the trace (`meta.trace`, `ctx.tools.explain`): a JSON object,
 * e.g. `{ rule: { index: 2, tool: 'fs_write', decision: 'deny' }, file: 'cordis.yml' }`. It never changes the
 * decision; read only while tracing, so computing it costs nothing when tracing is off.
 */
export type TraceDetail = { [key: string]: JsonValue }

export type PostToolDecision =
  | { kind: 'accept'; meta?: Record<string, JsonValue>; additionalContexts?: ContextMessage[]; detail?: TraceDetail; stop?: ToolStop }
  | {
      kind: 'replace'
      content: ContentBlock[]
      meta?: Record<string, JsonValue>
      additionalContexts?: ContextMessage[]
      source?: string
      detail?: TraceDetail
      stop?: ToolStop
    }
  | { kind: 'block'; reason: string; source?: string; additionalContexts?: ContextMessage[]; detail?: TraceDetail; stop?: ToolStop }

/** A guard's denial with detail for the trace (the matched rule, its file); a plain string reason is the same without it. */
export interface GuardDenial {
  reason: string
  detail?: TraceDetail
}

/** A monotonic guard: a reason denies, `undefined` leaves the call as it is. It cannot allow. */
export type ToolGuard = (exec: ToolExecution) => string | GuardDenial | undefined

/** Who decided a denial, block or error; carried in `meta.decidedBy`. */
export type Decider = 'registry' | 'listener' | 'guard' | 'approval' | 'wrapper' | 'tool'

export interface ApprovalRequest {
  exec: ToolExecution
  reason?: string
  source?: string
}

export type ApprovalAnswer = { kind: 'allow' } | { kind: 'deny'; reason: string }

/** A stored answer that allows a call without asking (user-approval: an exact or rule grant). */
export interface ApprovalGrant {
  id: string
  /** One line for people. */
  summary?: string
}

/** The optional `approval` service the registry looks up when a listener answers `ask`. */
export interface ApprovalService {
  request(request: ApprovalRequest): Promise<ApprovalAnswer>
  /**
   * Optional, without side effects (nobody is asked, nothing is recorded): the stored grant that would allow this
   * call at once, or undefined. `explain()` uses it to report such an ask as `allow`; a throw is the denial a real
   * `request()` would answer with.
   */
  covered?(exec: ToolExecution): ApprovalGrant | undefined | Promise<ApprovalGrant | undefined>
}

export interface ExecuteInput {
  callId: string
  name: string
  arguments: unknown
  signal?: AbortSignal
  parent?: symbol
}

export interface ToolSchema {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

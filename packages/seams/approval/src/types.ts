import type { ApprovalRequest, JsonValue } from '@dshkit/tools'

export type { ApprovalAnswer, ApprovalRequest, ApprovalService } from '@dshkit/tools'

/**
 * What a responder receives: the registry's request plus everything needed to show it and to bind
 * an answer to it. `arguments` are the exact (deep-frozen) arguments of the call; `argumentsHash`
 * is the sha256 of their canonical JSON (keys sorted), so an answer carried over a wire can say
 * which arguments it saw.
 */
export interface ApprovalAsk extends ApprovalRequest {
  /** Unique per ask (random); the key for `answer()` and the session events. */
  requestId: string
  callId: string
  /** The tool's name (`exec.name`). */
  tool: string
  /** The exact arguments (`exec.arguments`). */
  arguments: Readonly<JsonValue>
  /** sha256 hex of the canonical JSON of `arguments`. */
  argumentsHash: string
  /** When the ask arrived (ISO 8601). */
  askedAt: string
}

/**
 * A rule grant: allows calls the way a permission-policy allow rule would (same matching, @dshkit/rules):
 * `tool` glob, `when` argument-path globs, and for the shell `command` patterns (and `writes`).
 */
export interface GrantRule {
  tool: string
  when?: Record<string, string>
  command?: string | string[]
  writes?: string | string[]
}

/**
 * What a responder may answer. `allow` alone allows this call once. `grant: 'exact'` also stores a
 * grant for this tool and these exact arguments (by hash); `grant: { rule }` stores a rule grant.
 * `always: true` is the old spelling and now means `grant: 'exact'`.
 * A deny's `reason` is told to the model.
 */
export type ApprovalResponse =
  | {
      kind: 'allow'
      grant?: 'exact' | { rule: GrantRule }
      /** Old spelling of `grant: 'exact'`. */
      always?: boolean
      /** The grant's summary (default: the call or the rule, escaped and bounded). */
      summary?: string
      /** Who answered, stored with the grant (e.g. `tty`, `web`). */
      by?: string
    }
  | { kind: 'deny'; reason?: string }

/**
 * Answers one ask. `signal` aborts when the call is cancelled, `timeoutMs` passes, someone answers
 * through `approval.answer()`, or the service stops; stop prompting then. Return `undefined` to let
 * the next responder answer.
 */
export type Responder = (request: ApprovalAsk, signal: AbortSignal) => ApprovalResponse | undefined | Promise<ApprovalResponse | undefined>

/** A stored "always" answer. */
export type Grant = ExactGrant | RuleGrant

interface GrantBase {
  /** `g_` + 16 hex characters. */
  id: string
  /** ISO 8601. */
  created: string
  /** For an exact grant the tool name; for a rule grant its tool glob. */
  tool: string
  /** One line for people (control characters escaped, bounded). */
  summary: string
  /** Who made it, e.g. `tty`, `web`, a responder's name, `dshkit grants`. */
  by?: string
}
export interface ExactGrant extends GrantBase {
  kind: 'exact'
  argumentsHash: string
}
export interface RuleGrant extends GrantBase {
  kind: 'rule'
  rule: GrantRule
}

/** What `grants.add()` takes. */
export type GrantInput =
  | { kind: 'exact'; tool: string; argumentsHash: string; summary?: string; by?: string }
  | { kind: 'rule'; rule: GrantRule; summary?: string; by?: string }

/** `ctx.approval.grants`: the stored grants, shared by every responder (user-approval: a file; approval-postgres: a table). */
export interface GrantsApi {
  /** The file grants are kept in, or undefined when they live in memory only (`grants: false`). */
  readonly file: string | undefined
  /** Every grant, oldest first; throws when the store cannot be read (user-approval: GrantsFileError). */
  list(): Promise<Grant[]>
  add(grant: GrantInput): Promise<Grant>
  /** Removes a grant; resolves false when no grant has that id. */
  revoke(id: string): Promise<boolean>
}

/** A pending ask this process is waiting on. */
export type PendingAsk = Omit<ApprovalAsk, 'exec'>

/** What `approval.answer()` did. */
export type AnswerOutcome = { ok: true } | { ok: false; reason: 'unknown' | 'stale' | 'answered' | 'mismatch'; message: string }

/** Who or what ended an ask, as `approval/answered` records it. */
export type AnsweredBy = 'responder' | 'answer' | 'grant' | 'timeout' | 'cancelled' | 'stopped' | 'error'

/** How an ask ended, as the `approval/answered` event (session and cordis) carries it. */
export interface AskOutcome {
  decision: 'allow' | 'deny'
  by: AnsweredBy
  reason?: string
  grantId?: string
}

/**
 * An ask recorded in the session by an earlier process that ended before it was answered.
 * It can never be answered. `call` says what became of the call:
 * `outcome-unknown` — the session closed it as TOOL_OUTCOME_UNKNOWN (the body never ran: nothing allowed it);
 * `not-recorded` — no `tool/call` for it in the session (run outside the loop): it never ran;
 * `pending` — its `tool/call` is still open (the session has not repaired it yet);
 * `finished` — a later result exists (`code` says which, if it failed).
 */
export interface StaleRequest {
  requestId: string
  callId: string
  tool: string
  argumentsHash: string
  summary: string
  source?: string
  reason?: string
  askedAt: string
  call: 'outcome-unknown' | 'not-recorded' | 'pending' | 'finished'
  code?: string
  /** One line for people. */
  note: string
}

/** Why an ask ended without an answer; it is `signal.reason` for the responder. */
export class AskEnded extends Error {
  override name = 'AskEnded'
}

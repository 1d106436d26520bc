import { Ajv, type ValidateFunction, type ErrorObject } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { RE2JS } from 're2js'
import { z } from 'zod'
import type { jsonSchemaValidator, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { schemaProblem } from './schema-limits.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
const MAX_LISTED_ISSUES = 5

/** Patterns RE2 cannot run (lookaround, backreferences) pass here; the server, which owns the schema, still checks them. */
const skippedPatterns = new Set<string>()

/**
 * `pattern` keywords run on RE2 (linear time): a server's schema with `(a+)+$` cannot hang a call on a crafted
 * argument. A pattern RE2 refuses is not checked on this side (recorded in `skippedPatterns`).
 */
function re2(pattern: string): { test(text: string): boolean; toString(): string } {
  let compiled: RE2JS | undefined
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch {
    skippedPatterns.add(pattern)
  }
  return { test: (text) => (compiled ? compiled.matcher(text).find() : true), toString: () => `re2:${pattern}` }
}
re2.code = 're2'

const ajvOptions = { strict: false, allErrors: true, validateSchema: false, code: { regExp: re2 as never } } as const
let draft7: Ajv | undefined
let draft2020: Ajv | undefined
/** Compiles before the instances are replaced: what an instance keeps besides its cache (nested `$id`s) stays bounded. */
const COMPILES_PER_INSTANCE = 500
let compiles = 0
// `$schema` picks the dialect; MCP's default (and zod's output) is 2020-12, older servers say draft-07.
function ajvFor(schema: Record<string, unknown>): Ajv {
  if (++compiles > COMPILES_PER_INSTANCE) {
    compiles = 1
    draft7 = draft2020 = undefined
  }
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (/draft-0[4-7]/.test(dialect)) return (draft7 ??= addFormats(new Ajv(ajvOptions)))
  return (draft2020 ??= addFormats(new Ajv2020(ajvOptions) as unknown as Ajv))
}

export type Check = (value: unknown) => { ok: true } | { ok: false; message: string }

/**
 * A checker for a server's schema, or a reason it cannot be used. Never throws: a schema over the limits, one ajv
 * cannot compile (a dangling `$ref`), or one whose validation overflows the stack (a `$ref` loop) becomes a message.
 */
export function compileSchema(schema: unknown): Check | string {
  const problem = schemaProblem(schema)
  if (problem) return problem
  const { $id: _id, id: _legacyId, ...body } = schema as Record<string, unknown>
  let validate: ValidateFunction
  try {
    // Without its $id: ajv caches schemas by id, so two servers (or a restart) sharing one would clash.
    const ajv = ajvFor(body)
    try {
      validate = ajv.compile(body)
    } finally {
      // ajv caches every schema it compiles for the life of the instance: relisted tools (list_changed, restarts) would pile up.
      ajv.removeSchema(body)
    }
  } catch (error) {
    return `ajv could not compile it: ${oneLine(error)}`
  }
  return (value) => {
    try {
      if (validate(value)) return { ok: true }
      return { ok: false, message: describeErrors(validate.errors ?? []) }
    } catch (error) {
      if (error instanceof RangeError) return { ok: false, message: 'the schema recurses without end ($ref loop); the call cannot be checked' }
      return { ok: false, message: `the schema could not be applied: ${oneLine(error)}` }
    }
  }
}

function describeErrors(errors: ErrorObject[]): string {
  const listed = errors.slice(0, MAX_LISTED_ISSUES).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}${extra(error)}`)
  const more = errors.length > MAX_LISTED_ISSUES ? `; and ${errors.length - MAX_LISTED_ISSUES} more` : ''
  return listed.join('; ') + more
}

function extra(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  if (typeof params.additionalProperty === 'string') return ` (${JSON.stringify(params.additionalProperty)})`
  if (Array.isArray(params.allowedValues)) return ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
  return ''
}

const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 300)

/**
 * The tool's `parameters`: a zod schema whose JSON Schema (`ctx.tools.schemas()`) is the server's own and whose
 * check is ajv's, so the registry refuses bad arguments (INVALID_ARGS) before any policy sees them.
 */
export function parametersFor(inputSchema: Record<string, unknown>, label: string): z.ZodType {
  const check = compileSchema(inputSchema)
  const refine = z.any().superRefine((value, issues) => {
    const outcome =
      typeof check === 'string'
        ? { ok: false as const, message: `${label}'s input schema cannot be used (${check}); the tool cannot be called until the server fixes it` }
        : check(value)
    if (!outcome.ok) issues.addIssue({ code: 'custom', message: outcome.message, input: value })
  })
  const { id: _id, ...described } = inputSchema
  return refine.meta(typeof check === 'string' ? { type: 'object' } : described)
}

/** The SDK client's validator for `outputSchema`s: the same hardened compile, and never a throw inside listTools. */
export const hardenedValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
    // Compiled on the tool's first result, not in listTools: a page of 50,000 output schemas would block the process for minutes.
    let check: ReturnType<typeof compileSchema> | undefined
    return (input) => {
      check ??= compileSchema(schema)
      const outcome = typeof check === 'string' ? { ok: false as const, message: `the output schema cannot be used (${check})` } : check(input)
      return outcome.ok ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: outcome.message }
    }
  },
}

/** Patterns seen so far that RE2 could not run (for the README's decision and the tests). */
export function patternsNotChecked(): string[] {
  return [...skippedPatterns]
}

import { Context } from 'cordis'
import { z } from 'zod'
import { afterEach, describe, expect, test } from 'vitest'
import Tools, { defineTool, type ToolDefinition } from '@dshkit/tools'
import { boot, cleanup } from '@dshkit/testing'
import RedactSecrets, { type ConfigInput } from '../src/index.js'

afterEach(cleanup)

// Built at runtime so no key-shaped literal sits in the repository.
const OPENAI = 'sk-' + 'proj' + 'A1b2C3d4E5f6G7h8I9j0'
const AWS = 'AKIA' + 'IOSFODNN7EXAMPLE'
const GITHUB = 'ghp_' + 'abcdefghij'.repeat(3) + '123456'
const SLACK = 'xoxb-' + '1234567890-abcdefghij'
const GENERIC = 'q9'.repeat(12)

const leaky = defineTool({
  name: 'show_config',
  description: 'Returns a config object holding credentials.',
  parameters: z.object({}),
  execute: () => ({ openai: OPENAI, aws: AWS, note: 'nothing secret here' }),
})

async function setup(config?: ConfigInput, ...tools: ToolDefinition[]) {
  const { ctx, plug, call } = await boot({ tools: [leaky, ...tools] })
  const fiber = await plug(RedactSecrets, config)
  return { ctx, fiber, run: (name = 'show_config', args: unknown = {}) => call(name, args) }
}

const text = (result: { content: { type: string; text?: string }[] }) => result.content.map((b) => b.text ?? `<${b.type}>`).join('|')

describe('redaction', () => {
  test('key-shaped strings vanish from the content the model sees; the value stays what the tool returned', async () => {
    const { run } = await setup()
    const result = await run()
    expect(result.isError).toBe(false)
    expect(text(result)).not.toContain(OPENAI)
    expect(text(result)).not.toContain(AWS)
    expect(text(result)).toContain('"openai": "[REDACTED]"')
    expect(text(result)).toContain('nothing secret here')
    expect(result.isError === false && result.value).toEqual({ openai: OPENAI, aws: AWS, note: 'nothing secret here' })
    expect(result.meta).toEqual({ redactions: 2, replacedBy: 'redact-secrets' })
  })

  test('each built-in shape is caught; a labelled generic secret keeps its label', async () => {
    const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
    const { run } = await setup(undefined, echo)
    const result = await run('echo', { text: `gh ${GITHUB}\nslack ${SLACK}\nAPI_KEY=${GENERIC}\nshort token=abc` })
    expect(text(result)).toBe('gh [REDACTED]\nslack [REDACTED]\nAPI_KEY=[REDACTED]\nshort token=abc')
    expect(result.meta?.redactions).toBe(3)
  })

  test('output without secrets passes untouched, with no meta added', async () => {
    const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
    const { run } = await setup(undefined, echo)
    const result = await run('echo', { text: 'sk-short and AKIA lower' })
    expect(text(result)).toBe('sk-short and AKIA lower')
    expect(result.meta).toBeUndefined()
  })

  test('blocks stay blocks: an image is kept, each text block is redacted in place', async () => {
    const multi = defineTool({
      name: 'multi',
      description: 'text, image, text',
      parameters: z.object({}),
      execute: () => 'x',
      render: () => [
        { type: 'text', text: `key ${AWS}` },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'text', text: 'clean' },
      ],
    })
    const { run } = await setup(undefined, multi)
    const result = await run('multi')
    expect(result.content).toEqual([
      { type: 'text', text: 'key [REDACTED]' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'text', text: 'clean' },
    ])
  })

  test('an error message carrying a key is redacted in the content and in error.message; the call is still a TOOL_ERROR', async () => {
    const failing = defineTool({
      name: 'fail',
      description: 'throws',
      parameters: z.object({}),
      execute: () => {
        throw new Error(`bad credentials ${OPENAI}`)
      },
    })
    const { run } = await setup(undefined, failing)
    const result = await run('fail')
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'TOOL_ERROR', message: 'bad credentials [REDACTED]' },
      content: [{ type: 'text', text: 'Error: bad credentials [REDACTED]' }],
    })
  })

  test('what an inner listener decided is kept: its replacement is redacted, its meta and context survive', async () => {
    const { ctx, run } = await setup()
    await ctx.plugin({
      name: 'annotator',
      apply: (ctx) =>
        ctx.on('tools/post-execute', async () => ({
          kind: 'replace',
          content: [{ type: 'text', text: `annotated: ${GITHUB}` }],
          meta: { annotated: true },
          additionalContexts: [{ source: 'annotator', content: [{ type: 'text', text: 'see the docs' }] }],
        })),
    })
    const result = await run()
    expect(result.content).toEqual([{ type: 'text', text: 'annotated: [REDACTED]' }])
    expect(result.meta).toEqual({ annotated: true, redactions: 1, replacedBy: 'redact-secrets' })
    expect(result.additionalContexts).toEqual([{ source: 'annotator', content: [{ type: 'text', text: 'see the docs' }] }])
  })

  test('the meta of an inner accept survives the redaction', async () => {
    const { ctx, run } = await setup()
    await ctx.plugin({ name: 'tagger', apply: (ctx) => ctx.on('tools/post-execute', async () => ({ kind: 'accept', meta: { hook: 'ran' } })) })
    const result = await run()
    expect(text(result)).not.toContain(OPENAI)
    expect(result.meta).toEqual({ hook: 'ran', redactions: 2, replacedBy: 'redact-secrets' })
  })

  test('an inner block stays a block by the same plugin, with the key removed from its reason and its content', async () => {
    const { ctx, run } = await setup()
    await ctx.plugin({ name: 'blocker', apply: (ctx) => ctx.on('tools/post-execute', async () => ({ kind: 'block', reason: `leaked ${AWS}` })) })
    const result = await run()
    expect(result).toMatchObject({ isError: true, error: { code: 'BLOCKED', message: 'leaked [REDACTED]', source: 'blocker' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Error: leaked [REDACTED]' }])
  })

  test('extra patterns and a custom replacement; builtin: false leaves the built-in shapes alone', async () => {
    const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
    const { run } = await setup({ patterns: ['ACME-\\d{6}', 'pin: (?<secret>\\d{4})'], replacement: '***', builtin: false }, echo)
    const result = await run('echo', { text: `ACME-123456 pin: 1234 ${AWS}` })
    expect(text(result)).toBe(`*** pin: *** ${AWS}`)
  })
})

describe('plugin lifecycle', () => {
  test('after dispose results are no longer redacted', async () => {
    const { fiber, run } = await setup()
    expect(text(await run())).not.toContain(OPENAI)
    await fiber.dispose()
    expect(text(await run())).toContain(OPENAI)
  })

  test('a bad config is refused with a message naming the pattern', async () => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    await expect(ctx.plugin(RedactSecrets, { patterns: ['(unclosed'] })).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('pattern "(unclosed" is not a valid JavaScript regular expression'),
    })
    await expect(ctx.plugin(RedactSecrets, { patterns: ['x*'] })).rejects.toThrow(/pattern "x\*" matches the empty string/)
    await expect(ctx.plugin(RedactSecrets, { replacement: 42 } as any)).rejects.toThrow(/replacement must be a string/)
  })
})

import { describe, expect, test } from 'vitest'
import { blockText, type ContentBlock, contentAsText, describeBlock, joinText, replaceText } from '../src/index.js'
import { call, plug, setup, tool } from './helpers.js'

const wav = Buffer.alloc(12 * 1024, 1).toString('base64')
const audio: ContentBlock = { type: 'audio', data: wav, mimeType: 'audio/wav' }
const textRes: ContentBlock = { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# notes' } }
const blobRes: ContentBlock = {
  type: 'resource',
  resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: Buffer.from('%PDF').toString('base64') },
}
const link: ContentBlock = { type: 'resource_link', uri: 'file:///big.log', name: 'big.log', mimeType: 'text/plain', description: 'the full log' }

async function rendered(content: unknown) {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) => void ctx.tools.register(tool({ execute: () => 1, render: () => content as ContentBlock[] })))
  return ctx.tools.execute(call('probe', {}))
}

describe('audio, embedded resource and resource_link blocks', () => {
  test('each valid block comes through render() as a copy, unknown keys dropped', async () => {
    const result = await rendered([audio, textRes, blobRes, link, { ...audio, extra: 1 }])
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toEqual([audio, textRes, blobRes, link, audio])
  })

  test.each([
    [{ type: 'audio', mimeType: 'audio/wav' }, 'render()[0].data must be a string'],
    [{ type: 'audio', data: 'not base64!', mimeType: 'audio/wav' }, 'render()[0].data must be base64'],
    [{ type: 'audio', data: wav }, 'render()[0].mimeType must be a string'],
    [{ type: 'resource' }, 'render()[0].resource must be an object'],
    [{ type: 'resource', resource: { text: 'x' } }, 'render()[0].resource.uri must be a string'],
    [{ type: 'resource', resource: { uri: 'u' } }, 'render()[0].resource needs text or blob'],
    [{ type: 'resource', resource: { uri: 'u', text: 'x', blob: 'eA==' } }, 'render()[0].resource has both text and blob'],
    [{ type: 'resource', resource: { uri: 'u', blob: '***' } }, 'render()[0].resource.blob must be base64'],
    [{ type: 'resource', resource: { uri: 'u', text: 'x', mimeType: 3 } }, 'render()[0].resource.mimeType must be a string'],
    [{ type: 'resource_link', uri: 'u' }, 'render()[0].name must be a string'],
    [{ type: 'resource_link', uri: 'u', name: 'n', description: {} }, 'render()[0].description must be a string'],
    [{ type: 'video' }, 'render()[0] is not a text, image, audio, resource or resource_link block'],
    [null, 'render()[0] is not a content block'],
  ])('%j is INVALID_RESULT naming the field', async (block, message) => {
    const result = await rendered([block])
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_RESULT', message: expect.stringContaining(message) } })
  })

  test('a text resource counts as text for joinText and replaceText; binary blocks and links do not', () => {
    const content: ContentBlock[] = [{ type: 'text', text: 'a' }, audio, textRes, link]
    expect(joinText(content)).toBe('a\n# notes')
    expect(blockText(blobRes)).toBeUndefined()
    expect(replaceText(content, 'short')).toEqual([{ type: 'text', text: 'short' }, audio, link])
  })

  test('describeBlock says what a block is and how big, for consumers that carry only text', () => {
    expect(describeBlock(audio)).toBe('[audio audio/wav, 12 KB]')
    expect(describeBlock({ type: 'image', data: 'iVBORw==', mimeType: 'image/png' })).toBe('[image image/png, 4 B]')
    expect(describeBlock(blobRes)).toBe('[resource file:///a.pdf application/pdf, 4 B]')
    expect(describeBlock(link)).toBe('[resource link big.log file:///big.log text/plain: the full log]')
    expect(contentAsText([{ type: 'text', text: 'see' }, textRes, audio])).toBe('see\n# notes\n[audio audio/wav, 12 KB]')
  })
})

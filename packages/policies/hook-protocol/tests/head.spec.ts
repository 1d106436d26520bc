import { cleanup } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { runHook } from '../src/index.js'

afterEach(cleanup)

test('output cut at the byte cap keeps the head and never ends inside a character', async () => {
  // 'é' is two bytes: a cap of 11 bytes falls inside the third one.
  const result = await runHook({ command: `printf '{"a":"%s"}' ééééé`, payload: {}, maxOutputBytes: 11 })
  expect(result.truncated).toBe(true)
  expect(result.stdout).toBe('{"a":"éé')
  expect(result.stdout).not.toContain('\ufffd')
})

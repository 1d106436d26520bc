import { cleanup } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { psMatching, testShell } from './helpers.js'

afterEach(cleanup)

describe('output', () => {
  test('100 MB of output is read to the end and bounded to the tail; the dropped bytes are counted', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: 'yes | head -c 100000000; echo; echo last line', maxOutputBytes: 65_536 })
    expect(result.exitCode).toBe(0)
    expect(Buffer.byteLength(result.stdout.text)).toBe(65_536)
    expect(result.stdout.text.endsWith('y\n\nlast line\n')).toBe(true)
    expect(result.stdout.droppedBytes).toBe(100_000_000 + 1 + 10 - 65_536)
    expect(result.stderr).toEqual({ text: '', droppedBytes: 0 })
  }, 60_000)

  test('an endless writer is killed at its deadline with the tail kept, and nothing is left', async () => {
    const shell = await testShell()
    const tag = `endless-${Math.random().toString(36).slice(2)}`
    const result = await shell.run({ command: `yes ${tag}`, timeoutMs: 300, maxOutputBytes: 1000 })
    expect(result).toMatchObject({ timedOut: true, exitCode: null })
    expect(result.stdout.text.endsWith(`${tag}\n`)).toBe(true)
    expect(result.stdout.droppedBytes).toBeGreaterThan(0)
    expect(psMatching(tag)).toEqual([])
  })

  test('the tail never starts inside a character', async () => {
    const shell = await testShell()
    // 1000 three-byte characters; a 100-byte tail cuts one in the middle.
    const result = await shell.run({ command: 'for i in $(seq 1000); do printf "€"; done', maxOutputBytes: 100 })
    expect(result.stdout.text).toBe('€'.repeat(33))
    expect(result.stdout.droppedBytes).toBe(3000 - 99)
  })

  test('maxOutputBytes 0 keeps nothing and still counts everything', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: 'echo hello; echo oops >&2', maxOutputBytes: 0 })
    expect(result.stdout).toEqual({ text: '', droppedBytes: 6 })
    expect(result.stderr).toEqual({ text: '', droppedBytes: 5 })
  })

  test('a character split across chunks reaches listeners whole', async () => {
    const shell = await testShell()
    const proc = shell.spawn({ command: "printf '\\342\\202'; sleep 0.2; printf '\\254 ok\\n'" })
    const chunks: string[] = []
    proc.onOutput((chunk, stream) => {
      if (stream === 'stdout') chunks.push(chunk)
    })
    const result = await proc.done
    expect(chunks.length).toBeGreaterThanOrEqual(1)
    expect(chunks.join('')).toBe('€ ok\n')
    expect(chunks.some((chunk) => chunk.includes('\uFFFD'))).toBe(false)
    expect(result.stdout.text).toBe('€ ok\n')
  })

  test('a listener hears both streams, can unsubscribe, and one that throws breaks nothing', async () => {
    const shell = await testShell()
    const proc = shell.spawn({ command: 'echo a; sleep 0.1; echo b >&2; sleep 0.1; echo c' })
    const heard: string[] = []
    proc.onOutput(() => {
      throw new Error('listener bug')
    })
    const off = proc.onOutput((chunk, stream) => {
      heard.push(`${stream}:${chunk}`)
      if (chunk.includes('b')) off()
    })
    const result = await proc.done
    expect(heard).toEqual(['stdout:a\n', 'stderr:b\n'])
    expect(result.stdout.text).toBe('a\nc\n')
  })

  test('control characters and invalid UTF-8 are kept as they came (invalid bytes as U+FFFD)', async () => {
    const shell = await testShell()
    const result = await shell.run({ command: "printf '\\033[31mred\\033[0m\\000\\007\\r\\b\\377end'" })
    expect(result.stdout.text).toBe('\x1b[31mred\x1b[0m\0\x07\r\b\uFFFDend')
  })
})

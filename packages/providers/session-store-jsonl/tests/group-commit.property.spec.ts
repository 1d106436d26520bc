import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import fc from 'fast-check'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import Session from '@dshkit/session'
import { JsonlSessionStore, readSessionLog } from '../src/index.js'
import { call, tempDir } from './helpers.js'

afterEach(cleanup)

const tick = () => new Promise((resolve) => setImmediate(resolve))

// Random appends and flushes, spread over event-loop turns so they land in different batches, with the disk failing
// at a random fdatasync (or never): the file holds exactly the appends that resolved, in call order, and a flush resolves
// exactly when every append still in flight when it was called was kept (an earlier failure was reported to its own append).
test('group commit keeps call order and all-or-nothing batches for any interleaving and failure point', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          op: fc.constantFrom('append', 'append', 'append', 'flush'),
          wait: fc.constantFrom('none', 'turn', 'settle'),
          size: fc.integer({ min: 0, max: 3000 }),
        }),
        { minLength: 1, maxLength: 24 },
      ),
      fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      async (plan, failAtSync) => {
        const path = join(await tempDir(), 's.jsonl')
        let syncs = 0
        const store = new JsonlSessionStore(path, {
          warn: () => {},
          wrapHandle: (real) =>
            new Proxy(real, {
              get(target, key) {
                if (key === 'datasync') return () => (++syncs === failAtSync ? Promise.reject(new Error('EIO')) : target.datasync())
                const value = Reflect.get(target, key, target)
                return typeof value === 'function' ? value.bind(target) : value
              },
            }) as FileHandle,
        })
        const ctx = new Context()
        const fiber = await ctx.plugin(Session, { store })
        syncs = 0 // count from the first append on
        const appends: { id: string; outcome: Promise<boolean>; settled: boolean }[] = []
        const flushes: { waitsFor: number[]; outcome: Promise<boolean> }[] = []
        let n = 0
        for (const step of plan) {
          // 'turn': the next op joins the following batch; 'settle': batches in flight finish (a failure is then already known).
          if (step.wait === 'turn') await tick()
          if (step.wait === 'settle') await new Promise((resolve) => setTimeout(resolve, 15))
          if (step.op === 'flush') {
            const waitsFor = appends.flatMap((a, i) => (a.settled ? [] : [i]))
            flushes.push({
              waitsFor,
              outcome: ctx.session.flush().then(
                () => true,
                () => false,
              ),
            })
            continue
          }
          const id = `c${n++}`
          const event = { ...call(id), arguments: { pad: 'x'.repeat(step.size) } }
          const entry = {
            id,
            settled: false,
            outcome: ctx.session.append(event).then(
              () => true,
              () => false,
            ),
          }
          entry.outcome.then(() => {
            entry.settled = true
          })
          appends.push(entry)
        }
        const kept = await Promise.all(appends.map((a) => a.outcome))
        const flushed = await Promise.all(flushes.map((f) => f.outcome))
        await fiber.dispose()

        const resolvedIds = appends.filter((_, i) => kept[i]).map((a) => a.id)
        const onDisk = (await readSessionLog(path)).events.map((e) => (e as any).callId)
        expect(onDisk).toEqual(resolvedIds)
        // Once one append failed, none after it was kept: the log never has a gap.
        const firstLost = kept.indexOf(false)
        if (firstLost !== -1) expect(kept.slice(firstLost).every((k) => !k)).toBe(true)
        flushes.forEach((f, i) => expect(flushed[i]).toBe(f.waitsFor.every((j) => kept[j])))
      },
    ),
    { numRuns: 40, verbose: true },
  )
}, 120_000)

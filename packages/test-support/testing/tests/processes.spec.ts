import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually, exited, isLive, psMatching, readPid, tempDir, trackSleepers } from '../src/index.js'

afterEach(cleanup)

test('trackSleepers finds and kills what a test left running, and only that', async () => {
  const sleepers = trackSleepers()
  const mine = sleepers.next()
  const other = trackSleepers()
  const theirs = other.next()
  expect(mine).not.toBe(theirs)
  const children = [mine, theirs].map((duration) => spawn('sleep', [duration], { stdio: 'ignore' }))
  await eventually(() => expect(psMatching(`sleep ${mine}`)).toEqual([children[0]!.pid]))
  expect(sleepers.reap()).toEqual([children[0]!.pid])
  await eventually(() => expect(psMatching(`sleep ${mine}`)).toEqual([]))
  expect(psMatching(`sleep ${theirs}`)).toEqual([children[1]!.pid])
  expect(other.reap()).toEqual([children[1]!.pid])
  expect(sleepers.reap()).toEqual([])
})

test('isLive tells a running pid from a gone one; readPid reads what a script wrote; exited gives how it ended', async () => {
  const dir = await tempDir()
  const child = spawn('sleep', ['30'], { stdio: 'ignore' })
  await writeFile(join(dir, 'child.pid'), `${child.pid}\n`)
  const pid = await readPid(join(dir, 'child.pid'))
  expect(pid).toBe(child.pid)
  expect(await isLive(pid)).toBe(true)
  child.kill('SIGKILL')
  expect(await exited(child)).toBe('SIGKILL')
  expect(await exited(child)).toBe('SIGKILL') // already ended: answers at once
  expect(await isLive(pid)).toBe(false)
})

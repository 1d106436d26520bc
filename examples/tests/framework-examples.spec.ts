import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const run = promisify(execFile)
const examples = join(import.meta.dirname, '..')
// What each example's model does, in the order the session records it: three calls of one step, then an ask answered yes.
const SESSION =
  'tool/call, tool/call, tool/call, fs/observed, tool/result, tool/result, tool/result, tool/call, approval/requested, approval/answered, fs/write-intent, tool/result'

// The READMEs' own command, as a user runs it: the framework's real loop and test model, dshkit under it.
test.each(['ai-sdk', 'openai-agents', 'langchain'])('examples/%s runs as its README says: a denial, an approved write, the model done', async (example) => {
  const { stdout } = await run(process.execPath, ['run.mjs'], { cwd: join(examples, example), timeout: 60_000 })
  expect(stdout).toMatch(/^c1 fs_read: (ok|success|# demo)/m)
  expect(stdout).toMatch(/^c3 fs_read: (error )?Error: sandbox denied read of "\/etc\/passwd": it is outside the sandbox roots/m)
  expect(stdout).toMatch(/^c4 fs_write.*(notes\.md written|Created notes\.md)/m)
  expect(stdout).toMatch(/^model: all done$/m)
  expect(stdout).toContain(`session: ${SESSION}`)
})

import { describe, expect, test } from 'vitest'
import { applyPatchText, patchArguments, unmapToolInput, CODEX_TOOL_NAMES } from '../src/index.js'

describe('patchArguments: a rewritten apply_patch as fs_write / fs_edit arguments', () => {
  test('an Add File is fs_write; each + line ends in a newline, as Codex writes it', () => {
    expect(patchArguments('fs_write', '*** Begin Patch\n*** Add File: a/b.txt\n+one\n+\n+three\n*** End Patch\n')).toEqual({
      path: 'a/b.txt',
      content: 'one\n\nthree\n',
    })
  })

  test('an Update File with one hunk is fs_edit: context and - lines are old, context and + lines new', () => {
    const patch = '*** Begin Patch\n*** Update File: src/x.ts\n@@ function f\n keep\n-old line\n+new line\n+another\n*** End of File\n*** End Patch'
    expect(patchArguments('fs_edit', patch)).toEqual({ path: 'src/x.ts', old: 'keep\nold line', new: 'keep\nnew line\nanother' })
  })

  test.each([
    ['fs_write', '*** Begin Patch\n*** Add File: a\n+x\n*** Add File: b\n+y\n*** End Patch', /exactly one file here \(one fs_write call\); it has 2/],
    ['fs_write', '*** Begin Patch\n*** Delete File: a\n*** End Patch', /must be one "\*\*\* Add File:" section; it has "\*\*\* Delete File: a"/],
    ['fs_edit', '*** Begin Patch\n*** Add File: a\n+x\n*** End Patch', /must be one "\*\*\* Update File:" section/],
    ['fs_edit', '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n@@\n-z\n+w\n*** End Patch', /several hunks/],
    ['fs_edit', '*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch', /moves the file; fs_edit cannot rename/],
    ['fs_edit', '*** Begin Patch\n*** Update File: a\n@@\n+only new\n*** End Patch', /no old lines/],
    ['fs_write', '*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch', /starts with "\+"; this one does not: "no plus"/],
    ['fs_write', '*** Add File: a\n+x\n', /must start with "\*\*\* Begin Patch"/],
    ['fs_write', 42, /must be the patch text/],
  ])('%s: %j cannot be one call, and says why', (tool, patch, message) => {
    expect(() => patchArguments(tool, patch)).toThrow(message)
  })

  test('unmapToolInput keeps what a patch cannot say, and the patch it showed given back changes nothing', () => {
    const args = { path: 'a.txt', old: 'x', new: 'y', replaceAll: true }
    const mapping = CODEX_TOOL_NAMES.fs_edit
    const rewritten = unmapToolInput({ command: '*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+z\n*** End Patch\n' }, args, mapping, 'fs_edit')
    expect(rewritten).toEqual({ path: 'a.txt', old: 'x', new: 'z', replaceAll: true })
    const write = { path: 'b.txt', content: 'no newline at the end' }
    expect(unmapToolInput({ command: applyPatchText('fs_write', write) }, write, CODEX_TOOL_NAMES.fs_write, 'fs_write')).toEqual(write)
    expect(() => unmapToolInput({ command: 'x', path: 'y' }, write, CODEX_TOOL_NAMES.fs_write, 'fs_write')).toThrow(
      /has only "command" \(the patch\); it also has "path"/,
    )
  })
})

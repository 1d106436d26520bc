import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { pinnedFolders, spellingsOf } from '../src/index.js'

afterEach(cleanup)

test('the folders above a policy file are pinned, a folder whose name starts with two dots included', async () => {
  const root = await tempDir('dshkit-record-files-')
  for (const dir of ['..conf/deep', 'conf']) await mkdir(join(root, dir), { recursive: true })
  for (const file of ['..conf/deep/policy.json', 'conf/policy.json']) await writeFile(join(root, file), '{}')
  const spelled = spellingsOf([join(root, '..conf/deep/policy.json'), join(root, 'conf/policy.json'), join(root, 'top.json')])
  expect(pinnedFolders(spelled, [root]).sort()).toEqual([join(root, '..conf'), join(root, '..conf/deep'), join(root, 'conf')])
})

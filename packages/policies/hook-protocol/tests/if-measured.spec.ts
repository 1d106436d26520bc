import { describe, expect, test } from 'vitest'
import { compileIfRule } from '../src/index.js'

// Measured under the real Claude Code 2.1.197 (2026-12-04), offline against a fake model on loopback:
// PreToolUse hooks with these `if` values logged which tool calls they ran for. Project dir /proj
// (was /tmp/ccproj), /elsewhere is outside it. Per run: every rule, and per call the rules that fired;
// every rule not listed did not fire. Grep and Glob are absent from 2.1.197, so no call of theirs ran.
const MEASURED: { rules: string[]; fired: [tool: string, path: string, rules: string[]][] }[] = [
  {
    rules: [
      'Edit(.env)',
      'Write(.env)',
      'Read(.env)',
      'Grep(.env)',
      'Glob(.env)',
      'Edit(*.ts)',
      'Write(*.ts)',
      'Read(*.ts)',
      'Read(src/**)',
      'Edit(src/**)',
      'Edit(/src/**)',
      'Edit(./.env)',
      'Read(//proj/.env)',
      'Edit(**/.env)',
      'Edit',
      'Read',
      'Write',
      'Grep',
      'Glob',
      'NotebookEdit',
      'Edit(*.ipynb)',
      'NotebookEdit(*.ipynb)',
      'Read(*.ipynb)',
      'Grep(src/**)',
      'Glob(src/**)',
      'Read(src)',
      'Grep(*)',
      'Edit(*)',
    ],
    fired: [
      ['Read', '/proj/.env', ['Read(.env)', 'Read(//proj/.env)', 'Read']],
      ['Write', '/proj/.env', ['Write(.env)', 'Write']],
      ['Edit', '/proj/.env', ['Edit(.env)', 'Edit(./.env)', 'Edit(**/.env)', 'Edit', 'Edit(*)']],
      ['Read', '/proj/src/a.ts', ['Read(*.ts)', 'Read(src/**)', 'Read', 'Read(src)']],
      ['Write', '/proj/src/a.ts', ['Write(*.ts)', 'Write']],
      ['Edit', '/proj/src/a.ts', ['Edit(*.ts)', 'Edit(src/**)', 'Edit(/src/**)', 'Edit', 'Edit(*)']],
      ['Write', '/proj/src/deep/new.ts', ['Write(*.ts)', 'Write']],
      ['Read', '/proj/sub/.env', ['Read(.env)', 'Read']],
      ['Edit', '/proj/sub/.env', ['Edit(.env)', 'Edit(./.env)', 'Edit(**/.env)', 'Edit', 'Edit(*)']],
      ['Read', '/proj/nb.ipynb', ['Read', 'Read(*.ipynb)']],
      ['NotebookEdit', '/proj/nb.ipynb', ['NotebookEdit', 'NotebookEdit(*.ipynb)']],
      ['Read', '/proj/README.md', ['Read']],
    ],
  },
  {
    rules: [
      'Read(./.env)',
      'Read(./a.ts)',
      'Read(./src/a.ts)',
      'Read(src/a.ts)',
      'Read(/src/a.ts)',
      'Read(.env)',
      'Read(src/**)',
      'Read(*.ts)',
      'Read(src/*.ts)',
      'Read(**/src/**)',
      'Read(~/x)',
      'Read(deep)',
      'Read(src/deep)',
      'Read(deep/*.ts)',
      'Grep',
      'Glob',
      'Read(//elsewhere/**)',
      'Read(/elsewhere/**)',
    ],
    fired: [
      [
        'Read',
        '/proj/src/a.ts',
        ['Read(./a.ts)', 'Read(./src/a.ts)', 'Read(src/a.ts)', 'Read(/src/a.ts)', 'Read(src/**)', 'Read(*.ts)', 'Read(src/*.ts)', 'Read(**/src/**)'],
      ],
      ['Read', '/proj/sub/.env', ['Read(./.env)', 'Read(.env)']],
      ['Read', '/proj/sub/src/a.ts', ['Read(./a.ts)', 'Read(src/**)', 'Read(*.ts)', 'Read(**/src/**)']],
      ['Read', '/elsewhere/.env', ['Read(//elsewhere/**)']],
      ['Read', '/elsewhere/src/a.ts', ['Read(*.ts)', 'Read(**/src/**)', 'Read(//elsewhere/**)']],
      ['Read', '/proj/src/deep/b.ts', ['Read(src/**)', 'Read(*.ts)', 'Read(**/src/**)', 'Read(deep)', 'Read(src/deep)']],
    ],
  },
  {
    rules: [
      'Read(*.env)',
      'Read(**/.env)',
      'Read(.e*)',
      'Read(**/a.ts)',
      'Read(a.ts)',
      'Read(?.ts)',
      'Read({a,b}.ts)',
      'Read(*)',
      'Read(**)',
      'Read(src/**)',
      'Read(src/*)',
      'Read(src/)',
      'Read(src)',
      'Read(src/deep/**)',
      'Read(deep/**)',
      'Read(sub/src/**)',
      'Read(src/**/*.ts)',
      'Read(src/deep/*)',
      'Read(**/deep/*.ts)',
      'Read(./src/**)',
      'Read(/src/**)',
      'Read(src/**/b.ts)',
      'Read(.env/**)',
      'Read(outside/**)',
      'Read(../outside/**)',
      'Read(sub/**)',
    ],
    fired: [
      ['Read', '/elsewhere/.env', ['Read(*.env)', 'Read(**/.env)', 'Read(*)', 'Read(**)']],
      ['Read', '/elsewhere/src/a.ts', ['Read(**/a.ts)', 'Read(*)', 'Read(**)']],
      [
        'Read',
        '/proj/sub/src/a.ts',
        [
          'Read(**/a.ts)',
          'Read(a.ts)',
          'Read(?.ts)',
          'Read(*)',
          'Read(**)',
          'Read(src/**)',
          'Read(src/)',
          'Read(src)',
          'Read(sub/src/**)',
          'Read(./src/**)',
          'Read(sub/**)',
        ],
      ],
      [
        'Read',
        '/proj/sub/src/deep/b.ts',
        [
          'Read(?.ts)',
          'Read(*)',
          'Read(**)',
          'Read(src/**)',
          'Read(src/)',
          'Read(src)',
          'Read(deep/**)',
          'Read(sub/src/**)',
          'Read(**/deep/*.ts)',
          'Read(./src/**)',
          'Read(sub/**)',
        ],
      ],
      [
        'Read',
        '/proj/src/deep/b.ts',
        [
          'Read(?.ts)',
          'Read(*)',
          'Read(**)',
          'Read(src/**)',
          'Read(src/*)',
          'Read(src/)',
          'Read(src)',
          'Read(src/deep/**)',
          'Read(deep/**)',
          'Read(src/**/*.ts)',
          'Read(src/deep/*)',
          'Read(**/deep/*.ts)',
          'Read(./src/**)',
          'Read(/src/**)',
          'Read(src/**/b.ts)',
        ],
      ],
      ['Read', '/proj/.env', ['Read(*.env)', 'Read(**/.env)', 'Read(.e*)', 'Read(*)', 'Read(**)', 'Read(.env/**)']],
    ],
  },
]

describe('if rules agree with Claude Code 2.1.197', () => {
  for (const [run, { rules, fired }] of MEASURED.entries()) {
    for (const [tool, path, firing] of fired) {
      test(`run ${run + 1}: ${tool} ${path}`, () => {
        const key = tool === 'NotebookEdit' ? 'notebook_path' : 'file_path'
        const subject = { toolNames: [tool], toolInput: { [key]: path }, projectDir: '/proj' }
        const got = rules.filter((rule) => compileIfRule(rule)(subject))
        expect(got).toEqual(rules.filter((rule) => firing.includes(rule)))
      })
    }
  }
})

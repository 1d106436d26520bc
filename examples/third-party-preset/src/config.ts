import { z } from 'zod'
import DshBase from '@dshkit/dsh-base'
import { strictConfig } from '@dshkit/common'
import FileApproval from './file-approval.js'
import MaskEmails from './mask-emails.js'
import ProtectPaths from './protect-paths.js'
import WordCount from './word-count.js'

/** `false` leaves that part out, as in dsh-base. */
const orOff = <S extends z.ZodType>(schema: S) => z.union([z.literal(false), schema])

export const Config = strictConfig({
  // dsh-base's own schema, nested: its errors keep their path (`dsh-base.fs-sandbox.roots`).
  'dsh-base': DshBase.Config.prefault({}).describe('Passed to @dshkit/dsh-base; its user-approval is left out for file-approval unless that is false.'),
  'word-count': orOff(WordCount.Config).prefault({}),
  'protect-paths': orOff(ProtectPaths.Config).prefault({}),
  'mask-emails': orOff(MaskEmails.Config).prefault({}),
  'file-approval': orOff(FileApproval.Config).prefault({}),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

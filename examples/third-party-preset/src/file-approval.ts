import { appendFile } from 'node:fs/promises'
import { Service, type Context } from 'cordis'
import { z } from 'zod'
import type { ApprovalAnswer, ApprovalRequest, ApprovalService } from '@dshkit/tools'
import { strictConfig } from '@dshkit/common'

export const name = 'file-approval'
export const Config = strictConfig({
  allow: z.array(z.string()).default([]).describe('Tools whose asks are approved; every other ask is denied.'),
  audit: z.string().min(1).optional().describe('JSONL file every ask and its answer is appended to.'),
}).prefault({})
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

/** Provides the `approval` seam: answers asks by a fixed list, and keeps an audit trail on disk. */
export class FileApproval extends Service implements ApprovalService {
  constructor(
    ctx: Context,
    private readonly config: Config,
  ) {
    super(ctx, 'approval')
  }

  async request({ exec, reason, source }: ApprovalRequest): Promise<ApprovalAnswer> {
    const answer: ApprovalAnswer = this.config.allow.includes(exec.name)
      ? { kind: 'allow' }
      : { kind: 'deny', reason: `${exec.name} is not on the approval list; add it to file-approval.allow to allow it` }
    // Recorded before answering: an ask that was approved but not audited must not run (a throw denies).
    if (this.config.audit) {
      const line = { at: new Date().toISOString(), callId: exec.callId, tool: exec.name, reason, source, answer: answer.kind }
      await appendFile(this.config.audit, JSON.stringify(line) + '\n')
    }
    return answer
  }
}

export const apply = (ctx: Context, input?: ConfigInput) => {
  new FileApproval(ctx, Config.parse(input))
}

export default { name, Config, apply }

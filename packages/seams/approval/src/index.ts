// The approval seam: what `ctx.approval` is, its events, and what every provider and responder shares.
export type { ApprovalProvider } from './service.js'
export * from './types.js'
export { argumentsHash, canonicalJson } from './hash.js'
export { callSummary, cleanSummary, ruleSummary } from './summary.js'
export { previewJson, previewText, type PreviewLimits } from './preview.js'
export { recorder } from './record.js'

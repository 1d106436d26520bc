/** Nearest-rank percentile of sorted values (`p` in 0..100); undefined for none. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (!sorted.length) return undefined
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

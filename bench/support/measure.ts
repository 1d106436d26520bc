// Shared measuring helpers: interleaved medians, the machine line and markdown tables.

/** `BENCH_TINY=1` runs every bench once at a tiny size, so the test suite can prove each one still works. */
export const tiny = process.env.BENCH_TINY === '1'

/** The full-size count, or `small` when running tiny. */
export const size = (full: number, small = 1) => (tiny ? Math.min(full, small) : full)

export interface CompareOptions {
  /** Rounds; each round runs every contender once for `batch` calls, in a rotating order. */
  rounds: number
  /** Calls per contender per round; the round's figure is their mean. */
  batch: number
  /** Calls per contender before measuring, so JIT and caches warm up alike. */
  warmup?: number
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

async function timeBatch(fn: () => unknown, calls: number) {
  const start = performance.now()
  for (let i = 0; i < calls; i++) await fn()
  return ((performance.now() - start) * 1000) / calls
}

/** Median µs per call of each contender, measured interleaved in one process so machine noise hits all alike. */
export async function compare<K extends string>(contenders: Record<K, () => unknown>, options: CompareOptions): Promise<Record<K, number>> {
  const names = Object.keys(contenders) as K[]
  const rounds = size(options.rounds)
  const batch = size(options.batch)
  const warmup = size(options.warmup ?? options.batch, 1)
  for (const name of names) await timeBatch(contenders[name], warmup)
  const samples = new Map<K, number[]>(names.map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length])
    for (const name of order) samples.get(name)!.push(await timeBatch(contenders[name], batch))
  }
  return Object.fromEntries(names.map((name) => [name, median(samples.get(name)!)])) as Record<K, number>
}

/** The machine line every section starts with. */
export const machine = () => `Node ${process.version}, ${process.platform}/${process.arch}`

/** Integers as they are, ≥ 100 rounded, anything else with two decimals. */
export function formatCell(cell: string | number): string {
  if (typeof cell === 'string') return cell
  if (!Number.isFinite(cell)) throw new Error(`bench: a figure is ${cell}; the bench measured nothing`)
  if (Number.isInteger(cell)) return String(cell)
  return Math.abs(cell) >= 100 ? String(Math.round(cell)) : cell.toFixed(2)
}

/** A markdown table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(headers), line(headers.map(() => '---')), ...rows.map((row) => line(row.map(formatCell)))].join('\n')
}

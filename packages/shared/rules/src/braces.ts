/**
 * The alternatives of a glob's comma brace lists, `{fs_read,fs_lst}` → `fs_read`, `fs_lst` (nested lists too), so each
 * one can be checked like a name; undefined when there are more than `limit` of them. Ranges (`{1..3}`) stay as written.
 */
export function braceAlternatives(glob: string, limit = 256): string[] | undefined {
  // A pattern this long is not a list of tool names; its alternatives are not checked one by one.
  if (glob.length > 4096) return undefined
  const list = firstList(glob)
  if (!list) return [glob]
  const out: string[] = []
  for (const option of list.options) {
    const expanded = braceAlternatives(glob.slice(0, list.start) + option + glob.slice(list.end + 1), limit)
    if (!expanded || out.push(...expanded) > limit) return undefined
  }
  return out
}

/** The first `{…}` holding a top-level comma, with its options; backslash escapes are skipped. */
function firstList(glob: string): { start: number; end: number; options: string[] } | undefined {
  const opens: { at: number; commas: number[] }[] = []
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]
    if (char === '\\') i++
    else if (char === '{') opens.push({ at: i, commas: [] })
    else if (char === ',' && opens.length) opens.at(-1)!.commas.push(i)
    else if (char === '}' && opens.length) {
      const open = opens.pop()!
      // Any list that closes first: the others are expanded in the next rounds, in whatever order.
      if (open.commas.length) {
        const cuts = [open.at, ...open.commas, i]
        return { start: open.at, end: i, options: cuts.slice(1).map((cut, k) => glob.slice(cuts[k] + 1, cut)) }
      }
    }
  }
}

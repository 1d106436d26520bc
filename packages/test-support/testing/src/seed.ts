/**
 * The seed of a property test: `FC_SEED` replays one; fixed by default, so a green main stays green and a red
 * one is a change's fault; `FC_SEED=random` draws a new one to hunt (print it, and a failure names it).
 */
export function propertySeed(variable = 'FC_SEED'): number {
  const given = process.env[variable]
  return given === 'random' ? Date.now() % 2 ** 31 : Number(given ?? 20261208)
}

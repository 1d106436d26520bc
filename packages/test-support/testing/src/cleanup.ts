const pending: (() => unknown)[] = []

/** Registers an undo step for `cleanup()`; returns a function that runs it now (once). */
export function onCleanup(step: () => unknown): () => Promise<void> {
  let done = false
  const run = async () => {
    if (done) return
    done = true
    const index = pending.indexOf(run)
    if (index >= 0) pending.splice(index, 1)
    await step()
  }
  pending.push(run)
  return run
}

/**
 * Undoes everything the kit set up since the last call, newest first: booted contexts are
 * disposed, temp dirs removed, a fake clock restored. Call it from `afterEach`. Every step runs
 * even if one fails; the first failure is rethrown after.
 */
export async function cleanup(): Promise<void> {
  let failure: { error: unknown } | undefined
  while (pending.length) {
    try {
      await pending.at(-1)!()
    } catch (error) {
      failure ??= { error }
    }
  }
  if (failure) throw failure.error
}

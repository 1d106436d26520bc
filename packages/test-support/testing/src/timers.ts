// Taken at load, so the kit's own waits keep working while a test fakes the global timers.
export const realSetTimeout = globalThis.setTimeout
export const realClearTimeout = globalThis.clearTimeout

/** Waits `ms` on the real clock, whatever a test did to the global timers. */
export function realDelay(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms))
}

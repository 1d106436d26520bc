import { open, readFile, rename } from 'node:fs/promises'
import type { Context } from 'cordis'
import { provideSession, type SessionEvent, type SessionStore } from '@dshkit/session'
import { z } from 'zod'

/** Keeps the whole log as one JSON array, rewritten atomically per event: simple, durable, O(n) per append. */
export class JsonFileSessionStore implements SessionStore {
  private events: SessionEvent[] = []

  constructor(private readonly path: string) {}

  async load() {
    const text = await readFile(this.path, 'utf8').catch((error) => (error.code === 'ENOENT' ? '[]' : Promise.reject(error)))
    this.events = JSON.parse(text)
    return this.events.slice()
  }

  async append(event: SessionEvent) {
    const temp = `${this.path}.tmp`
    const file = await open(temp, 'w')
    try {
      await file.writeFile(JSON.stringify([...this.events, event]))
      await file.sync() // durable before append resolves: that is the contract
    } finally {
      await file.close()
    }
    await rename(temp, this.path)
    this.events.push(event)
  }
}

export const Config = z.object({ path: z.string().min(1, 'path must name the JSON file') })

export default {
  name: 'json-file-session',
  Config,
  // Resolves once the log is loaded and repaired; returns nothing (cordis would take a returned value as a disposer).
  async apply(ctx: Context, config: z.infer<typeof Config>) {
    await provideSession(ctx, new JsonFileSessionStore(config.path))
  },
}

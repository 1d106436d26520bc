import { z } from 'zod'
import { defineTool, type ToolDefinition } from '@dshkit/tools'

/** Two tools that record how many of their calls ran at once: `probe_write` (not concurrency-safe) and `probe_read` (safe). */
export interface OverlapProbe {
  tools: ToolDefinition[]
  /** The most calls of each tool that were running at the same moment. */
  maxInFlight: { probe_write: number; probe_read: number }
}

// Enough turns of the event loop for a second call started "together" to be seen running.
const TURNS = 20

/**
 * For adapter tests: a read waits (a bounded number of event-loop turns) for a second read to join it, so two
 * reads of one batch are seen overlapping; a write holds on for the same turns, so two writes started
 * together would be seen overlapping.
 */
export function overlapProbe(): OverlapProbe {
  const maxInFlight = { probe_write: 0, probe_read: 0 }
  const inFlight = { probe_write: 0, probe_read: 0 }
  const make = (name: 'probe_write' | 'probe_read') =>
    defineTool({
      name,
      description: name === 'probe_read' ? 'Reads nothing (may overlap).' : 'Writes nothing (runs alone).',
      parameters: z.object({ id: z.string() }),
      ...(name === 'probe_read' && { isConcurrencySafe: () => true }),
      execute: async ({ id }) => {
        maxInFlight[name] = Math.max(maxInFlight[name], ++inFlight[name])
        for (let turn = 0; turn < TURNS && !(name === 'probe_read' && inFlight[name] > 1); turn++) {
          await new Promise((resolve) => setImmediate(resolve))
          maxInFlight[name] = Math.max(maxInFlight[name], inFlight[name])
        }
        inFlight[name]--
        return `${name} ${id}`
      },
    }) as ToolDefinition
  return { tools: [make('probe_write'), make('probe_read')], maxInFlight }
}

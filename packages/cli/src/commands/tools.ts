import { bootRuntime, shutdown, type BootOptions } from '../runtime.js'
import { visible } from '../terminal.js'

export async function tools(options: BootOptions & { json: boolean }): Promise<number> {
  const { ctx, problems } = await bootRuntime(options)
  for (const problem of problems) process.stderr.write(`dshkit: ${visible(problem)}\n`)
  const schemas = ctx.tools.schemas()
  if (options.json) {
    process.stdout.write(JSON.stringify(schemas, null, 2) + '\n')
  } else {
    for (const { name, description, inputSchema } of schemas) {
      const def = ctx.tools.get(name)!
      const traits = [def.timeoutMs && `timeout ${def.timeoutMs} ms`, def.idempotent && 'idempotent', def.fsAccess && 'file access checked'].filter(Boolean)
      process.stdout.write(`${name}${traits.length ? `  (${traits.join(', ')})` : ''}\n  ${visible(description.split('\n')[0])}\n`)
      process.stdout.write(
        `${JSON.stringify(inputSchema, null, 2)
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n')}\n\n`,
      )
    }
  }
  await shutdown(ctx)
  return problems.length ? 1 : 0
}

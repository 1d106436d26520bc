import Jobs from '@dshkit/jobs'
import ShellLocal from '@dshkit/shell-local'
import { boot, textOf, type PluginEntry } from '@dshkit/testing'
import ToolJobs, { type ConfigInput } from '../src/index.js'

export const Shell: PluginEntry = [ShellLocal, { cwd: process.cwd() }]

/** shell + jobs + tool-jobs (+ `after`, e.g. policies); `agent` starts jobs as the model's tool owner would. */
export async function setup(config: ConfigInput = {}, after: PluginEntry[] = []) {
  const booted = await boot({ plugins: [Shell, Jobs, [ToolJobs, config], ...after] })
  const agent = booted.ctx.jobs.forOwner(booted.ctx.jobs.toolOwner)
  const text = async (name: string, args: unknown) => textOf(await booted.call(name, args))
  return { ...booted, agent, text }
}

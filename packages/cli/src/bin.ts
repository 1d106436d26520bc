#!/usr/bin/env node
import { main } from './main.js'

// A closed pipe (`dshkit tools | head`) is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

process.exitCode = await main(process.argv.slice(2))

export * from './errors.js'
export * from './resolve.js'
export * from './service.js'

/** The service name providers register under (`ctx.fs`). This package is the seam only, not a plugin. */
export const name = 'fs'

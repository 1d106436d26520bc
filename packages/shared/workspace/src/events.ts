import type {} from 'cordis'

declare module 'cordis' {
  interface Events {
    /** A shell provider hid these objects (`dev:ino`) from its latest command; the file tools deny them wherever they are now. */
    'fs-sandbox/hidden'(identities: ReadonlySet<string>): void
  }
}

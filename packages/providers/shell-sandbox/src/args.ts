/** Everything one sandboxed launch needs, already resolved to real paths, each a byte string (see bytes.ts). */
export interface SandboxLayout {
  /** Writable binds, in order. */
  roots: readonly string[]
  /** Where each root is bound from (index-aligned; default the root itself): its copy-on-write view in transaction mode. */
  sources?: readonly string[]
  /** Read-only binds over (or beside) the roots; mounted after them, so they win. */
  readOnlyRoots: readonly string[]
  /** Deny-glob matches found at launch: folders get an empty folder, everything else an empty file. */
  hiddenDirs: readonly string[]
  hiddenFiles: readonly string[]
  /** An empty, read-only folder and file on the host, bound over what is hidden. */
  emptyDir: string
  emptyFile: string
  /** Host paths under /run bound back read-only (the resolver config when the network is on). */
  keepFromRun: readonly string[]
  network: boolean
  cwd: string
}

/**
 * The bubblewrap flags that confine one command. Order matters: later mounts cover earlier ones,
 * so the read-only system comes first, then the private /tmp and /run, the roots, the read-only
 * roots over them, and the hidden paths last. They reach bubblewrap through `--args` (NUL-separated
 * bytes on a pipe), never its argv: see `launchArgs`.
 */
export function sandboxFlags(layout: SandboxLayout): string[] {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    // Private: nothing another process left in /tmp (agent sockets, X11) is visible or reachable.
    '--tmpfs',
    '/tmp',
    // Host daemons' unix sockets (docker, dbus) live here; a read-only mount does not stop connect().
    '--tmpfs',
    '/run',
  ]
  for (const path of layout.keepFromRun) args.push('--ro-bind', path, path)
  for (const [i, root] of layout.roots.entries()) args.push('--bind', layout.sources?.[i] ?? root, root)
  for (const root of layout.readOnlyRoots) args.push('--ro-bind', root, root)
  for (const dir of layout.hiddenDirs) args.push('--ro-bind', layout.emptyDir, dir)
  for (const file of layout.hiddenFiles) args.push('--ro-bind', layout.emptyFile, file)
  args.push(
    // A fresh pid namespace: when bwrap goes, the kernel kills everything started inside.
    '--unshare-pid',
    '--unshare-ipc',
    ...(layout.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    // No controlling terminal to push keystrokes into (TIOCSTI).
    '--new-session',
    // Run as root, bwrap keeps every capability: the command could remount / read-write.
    '--cap-drop',
    'ALL',
    '--chdir',
    layout.cwd,
  )
  return args
}

/** bubblewrap's argv for one command: the flags go on fd 3, so `/proc/<pid>/cmdline` inside shows none of them. */
export function launchArgs(shell: string, command: string): string[] {
  return ['--args', '3', '--', shell, '-c', command]
}

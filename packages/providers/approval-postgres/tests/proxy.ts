import net from 'node:net'

/**
 * A TCP proxy in front of the test server, so a test can cut every connection (`cut`) or refuse new
 * ones (`down`) without touching the server the other tests share.
 */
export async function pgProxy(serverUrl: string) {
  const target = targetOf(serverUrl)
  const sockets = new Set<net.Socket>()
  let refusing = false
  const server = net.createServer((client) => {
    if (refusing) return void client.destroy()
    const upstream = net.connect(target)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  const url = new URL(serverUrl)
  return {
    url: `postgres://${url.username}${url.password ? `:${url.password}` : ''}@127.0.0.1:${port}${url.pathname}`,
    /** Drops every open connection; new ones still go through. */
    cut: () => {
      for (const socket of sockets) socket.destroy()
    },
    /** Drops every connection and refuses new ones until `up()`. */
    down: () => {
      refusing = true
      for (const socket of sockets) socket.destroy()
    },
    up: () => {
      refusing = false
    },
    // Waits for every connection to end: a worker that leaks one after its stop makes this hang (and the test fail).
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Where the server listens: a unix socket (`?host=/dir`) or host:port. */
function targetOf(serverUrl: string): net.NetConnectOpts {
  const url = new URL(serverUrl)
  const port = Number(url.port || 5432)
  const host = url.searchParams.get('host') ?? url.hostname
  return host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port }
}

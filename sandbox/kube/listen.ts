// Starts a sandbox's HTTP server on the loopback interface. A port in use is an error to the caller (EADDRINUSE, which
// the `sandbox` command turns into its usage error), not an uncaught 'error' event. Shared with the GitHub sandbox.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1:`port` (0: any free one) and returns the server's URL. */
export async function listenOnLoopback(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

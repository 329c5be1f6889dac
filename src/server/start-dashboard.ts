/**
 * Serving the dashboard: open the store read-only (after migrating it once, read-write), listen on
 * exactly the given host (127.0.0.1 unless told otherwise) and report the bound address, so the
 * caller and the tests can see what is actually listening. A busy port is an environment problem.
 */
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { EnvironmentError, UsageError } from '../core/errors.js';
import { RunStore } from '../store/index.js';

export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';
export const DEFAULT_DASHBOARD_PORT = 8765;

export interface DashboardOptions {
  dbPath: string;
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
}

export interface RunningDashboard {
  url: string;
  address: AddressInfo;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? DEFAULT_DASHBOARD_HOST;
  const port = options.port ?? DEFAULT_DASHBOARD_PORT;
  if (host === '' || /[\s/]/.test(host)) throw new UsageError(`invalid value for --host: "${host}" (expected an address such as 127.0.0.1)`);
  // hono is loaded here, not at import: `import 'aifabric'` should not pay for a web server.
  const [{ serve }, { createDashboardApp }] = await Promise.all([import('@hono/node-server'), import('./dashboard-app.js')]);
  const store = new RunStore(options.dbPath, { mustExist: true, readonly: true });
  const app = createDashboardApp(store, { loopbackOnly: isLoopback(host) });
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const created = serve({ fetch: app.fetch, port, hostname: host }) as Server;
      created.once('listening', () => resolve(created));
      created.once('error', reject);
    });
  } catch (error) {
    store.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new EnvironmentError(`port ${port} on ${host} is in use; pick another with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new EnvironmentError(`cannot listen on ${host}: no such address on this machine`);
    if (code === 'EACCES') throw new EnvironmentError(`no permission to listen on ${host}:${port} (ports below 1024 need privileges)`);
    throw error;
  }
  const address = server.address() as AddressInfo;
  const urlHost = isIP(address.address) === 6 ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}/`,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          store.close();
          resolve();
        });
      }),
  };
}

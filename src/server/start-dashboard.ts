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

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, 63 characters each. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Refuses, before anything is opened, an address that no machine can have: a dotted quad with a
 * part above 255, an IPv6 form that does not parse, a name with characters names never hold (exit 2).
 * A well-formed name that does not resolve here is still the environment's problem (exit 3, at listen).
 */
export function checkListenHost(host: string): void {
  const expected = 'expected an IPv4 or IPv6 address such as 127.0.0.1 or ::1, or a host name';
  if (isIP(host) !== 0) return;
  if (/^[\d.]+$/.test(host))
    throw new UsageError(
      `invalid value for --host: "${host}" is not an IPv4 address (four numbers 0 to 255 separated by dots)`,
    );
  if (host.includes(':'))
    throw new UsageError(`invalid value for --host: "${host}" is not an IPv6 address (${expected})`);
  if (!HOST_NAME.test(host)) throw new UsageError(`invalid value for --host: "${host}" (${expected})`);
}

export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? DEFAULT_DASHBOARD_HOST;
  const port = options.port ?? DEFAULT_DASHBOARD_PORT;
  checkListenHost(host);
  // hono is loaded here, not at import: `import 'aifabric'` should not pay for a web server.
  const [{ serve }, { createDashboardApp }] = await Promise.all([
    import('@hono/node-server'),
    import('./dashboard-app.js'),
  ]);
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
    if (code === 'EADDRINUSE')
      throw new EnvironmentError(`port ${port} on ${host} is in use; pick another with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new EnvironmentError(`cannot listen on ${host}: no such address on this machine`);
    if (code === 'EACCES')
      throw new EnvironmentError(
        `no permission to listen on ${host}:${port} (ports below 1024 need privileges)`,
      );
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

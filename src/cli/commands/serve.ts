/**
 * `aifabric serve`: the read-only dashboard over the results database, on 127.0.0.1 unless
 * --host says otherwise. Runs until Ctrl-C (SIGINT) or SIGTERM, then closes cleanly.
 */
import { Command } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.js';
import { nonNegativeIntArg } from '../options.js';
import { addDbOption } from '../store-options.js';

function portArg(value: string): number {
  const port = nonNegativeIntArg('--port')(value);
  if (port > 65535)
    throw new UsageError(`invalid value for --port: "${value}" (expected 0 to 65535; 0 picks a free port)`);
  return port;
}

export function registerServe(program: Command): void {
  addDbOption(
    program
      .command('serve')
      .description('serve a read-only dashboard of saved runs (runs list, each run as in the report, diffs)')
      .option('--port <port>', 'TCP port (0 picks a free one)', portArg, 8765)
      .option(
        '--host <address>',
        'address to listen on; anything but loopback exposes your results to the network',
        '127.0.0.1',
      ),
  ).action(async (options) => {
    const [{ startDashboard, isLoopback, checkListenHost }, { resolveDbPath }] = await Promise.all([
      import('../../server/index.js'),
      import('../../store/index.js'),
    ]);
    // A malformed address is a usage error before the database is opened (exit 2, not 3 at listen time).
    checkListenHost(options.host);
    const dbPath = resolveDbPath(options.db);
    const dashboard = await startDashboard({ dbPath, host: options.host, port: options.port });
    if (!isLoopback(options.host))
      process.stderr.write(
        `warning: listening on ${options.host}: anyone who can reach this machine can read these results\n`,
      );
    process.stdout.write(`aifabric dashboard: ${dashboard.url} (read-only, ${dbPath}; Ctrl-C stops it)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void dashboard.close().then(resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  });
}

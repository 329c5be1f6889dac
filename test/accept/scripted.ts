/**
 * Scripted hosts for accept's engine tests: a launcher whose hosts answer each argv from a script,
 * as the tools print on Linux, so stages run without namespaces, GPUs or RDMA devices.
 */
import type { AcceptLauncher, LaunchResult } from '../../src/accept/index.js';

/** A run that exited 0 having printed `stdout`. */
export const ok = (stdout: string): Promise<LaunchResult> =>
  Promise.resolve({ exitCode: 0, stdout, stderr: '', timedOut: false, wallS: 0.01 });

/** `ip -j link show` of a host with one interface up at this MTU. */
export const linkJson = (mtu: number, ifname = 'eth0', linkType = 'ether'): string =>
  JSON.stringify([{ ifname, mtu, link_type: linkType, flags: ['UP', 'LOWER_UP'] }]);

/** A launcher over hosts `names` (addresses 10.9.0.1...) answering every run with `answer`. */
export function scriptedLauncher(
  names: readonly string[],
  answer: (
    host: number,
    command: readonly string[],
    env: Record<string, string> | undefined,
  ) => Promise<LaunchResult>,
): AcceptLauncher {
  const hosts = names.map((name, k) => ({ name, address: `10.9.0.${k + 1}` }));
  return {
    label: 'scripted',
    hosts,
    reproduce: (host, command) => ['on', hosts[host]!.name, ...command],
    exec: (host, command, options) => answer(host, command, options.env),
  };
}

/** The host names `prefix-h0`... of an n-host scripted fleet. */
export const hostNames = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, k) => `${prefix}-h${k}`);

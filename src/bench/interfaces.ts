/** `--ifname`: the IPv4 address of a named interface (as NCCL_SOCKET_IFNAME picks its interface). */
import os from 'node:os';
import { EnvironmentError } from '../core/errors.js';

export function interfaceAddress(ifname: string): string {
  const all = os.networkInterfaces();
  const entries = all[ifname];
  const v4 = entries?.find((entry) => entry.family === 'IPv4');
  if (!v4) {
    const names = Object.keys(all).join(', ');
    throw new EnvironmentError(
      `--ifname ${ifname}: no such interface with an IPv4 address on host ${os.hostname()} (have: ${names})`,
    );
  }
  return v4.address;
}

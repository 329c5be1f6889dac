/** Debian's Chromium driven by playwright-core (never a downloaded browser), and where tests put what they produce. */
import { join } from 'node:path';

export const TEST_OUTPUT = join(import.meta.dirname, '..', '..', 'test-output');

export const CHROMIUM_LAUNCH = {
  executablePath: process.env.AIFABRIC_CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

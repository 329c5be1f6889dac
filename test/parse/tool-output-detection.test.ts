/**
 * Each real output is detected as its own kind only, and every parser refuses every other kind's
 * outputs with NotThisKindError: over all tool-output fixtures and the shared nccl-tests samples.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ethtoolParser } from '../../src/parse/ethtool.js';
import { ibvDevinfoParser } from '../../src/parse/ibv-devinfo.js';
import { iperf3Parser } from '../../src/parse/iperf3.js';
import { ncclEnvParser } from '../../src/parse/nccl-env.js';
import { nvidiaSmiTopoParser } from '../../src/parse/nvidia-smi-topo.js';
import { perftestParser } from '../../src/parse/perftest.js';
import { rdmaLinkParser } from '../../src/parse/rdma-link.js';
import { DETECT_THRESHOLD, detectKind } from '../../src/parse/registry.js';
import { showGidsParser } from '../../src/parse/show-gids.js';
import { sysctlParser } from '../../src/parse/sysctl.js';
import { NotThisKindError, type Parser } from '../../src/parse/types.js';
import { fixtures, SHARED_SAMPLES_ROOT } from './tool-output-fixtures.js';

const TOOL_PARSERS: Parser[] = [
  perftestParser, iperf3Parser, ibvDevinfoParser, rdmaLinkParser, showGidsParser,
  nvidiaSmiTopoParser, sysctlParser, ncclEnvParser, ethtoolParser,
];

const ncclTestsSamples = readdirSync(join(SHARED_SAMPLES_ROOT, 'nccl-tests'))
  .filter((name) => name.endsWith('.log') || name.endsWith('.txt'))
  .map((name) => ({ name, text: readFileSync(join(SHARED_SAMPLES_ROOT, 'nccl-tests', name), 'utf8') }));

describe('every tool-output fixture is detected as its own kind only', () => {
  for (const own of TOOL_PARSERS) {
    for (const fixture of fixtures(own.kind)) {
      it(`${own.kind}/${fixture.name}`, () => {
        for (const parser of TOOL_PARSERS) {
          const confidence = parser.detect(fixture.text);
          if (parser === own) expect(confidence, parser.kind).toBeGreaterThanOrEqual(DETECT_THRESHOLD);
          else expect(confidence, `${parser.kind} fired`).toBeLessThan(DETECT_THRESHOLD);
        }
        expect(detectKind(fixture.text)?.kind).toBe(own.kind);
      });
    }
  }
});

describe('every tool parser refuses the other kinds’ outputs', () => {
  for (const parser of TOOL_PARSERS) {
    it(parser.kind, () => {
      const others = [
        ...TOOL_PARSERS.filter((other) => other !== parser).flatMap((other) => fixtures(other.kind)),
        ...ncclTestsSamples,
      ];
      for (const other of others) {
        expect(() => parser.parse(other.text), other.name).toThrow(NotThisKindError);
        expect(parser.detect(other.text), other.name).toBeLessThan(DETECT_THRESHOLD);
      }
    });
  }
});

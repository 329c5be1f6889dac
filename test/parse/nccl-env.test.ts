import { describe, expect, it } from 'vitest';
import { parseNcclEnv } from '../../src/parse/nccl-env.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'nccl-env';

describe('nccl-env parser: facts checked by hand against the text', () => {
  it('reads export lines and types NCCL_IB_HCA as a prefix list', () => {
    const { facts } = parseNcclEnv(fixtureText(KIND, 'flagai-run_multi.sh'));
    expect(facts.nccl.ibHca).toEqual({
      raw: 'mlx5_2,mlx5_5',
      exclude: false,
      exactMatch: false,
      entries: [
        { name: 'mlx5_2', port: null },
        { name: 'mlx5_5', port: null },
      ],
    });
    expect(facts.nccl).toMatchObject({ ibGidIndex: 0, ibDisable: false, debug: 'debug' });
    expect(facts.otherVariableCount).toBe(1); // OMP_NUM_THREADS
  });

  it('does not guess a value computed by the shell', () => {
    const { facts, warnings } = parseNcclEnv(fixtureText(KIND, 'megengine-benchmark-prepare.sh'));
    expect(facts.nccl).toMatchObject({ ibGidIndex: 3, ibTc: 106, ibHca: null });
    expect(facts.entries.find((e) => e.name === 'NCCL_IB_HCA')!.dynamic).toBe(true);
    expect(warnings.map((w) => w.line)).toEqual([4]);
  });

  it('keeps UCX variables and reads a GDR level given by name', () => {
    const { facts } = parseNcclEnv(fixtureText(KIND, 'sc24-dl-tutorial-export_frontier_vars.sh'));
    expect(facts.variables.UCX_NET_DEVICES).toBe('mlx5_0:1');
    expect(facts.nccl.netGdrLevel).toEqual({ raw: 'PHB', level: 'PHB', legacyInteger: null });
    expect(facts.nccl.net).toBe('UCX');
  });

  it('reads ^ and = prefixes, ports, quotes, env dumps, legacy GDR integers and lists', () => {
    const text = [
      'NCCL_IB_HCA="^=mlx5_3:1,mlx5_4"',
      "declare -x NCCL_SOCKET_IFNAME='^docker0,lo'",
      'NCCL_NET_GDR_LEVEL=2',
      'NCCL_ALGO=^Tree',
      'NCCL_PROTO=LL,LL128,Simple # all three',
      'NCCL_SOCKET_NTHREADS=4',
      'NCCL_NSOCKS_PERTHREAD=2',
      'HOME=/root',
    ].join('\n');
    const { facts } = parseNcclEnv(text);
    expect(facts.nccl.ibHca).toEqual({
      raw: '^=mlx5_3:1,mlx5_4',
      exclude: true,
      exactMatch: true,
      entries: [
        { name: 'mlx5_3', port: 1 },
        { name: 'mlx5_4', port: null },
      ],
    });
    expect(facts.nccl.socketIfname).toMatchObject({
      exclude: true,
      exactMatch: false,
      entries: [{ name: 'docker0' }, { name: 'lo' }],
    });
    expect(facts.nccl.netGdrLevel).toEqual({ raw: '2', level: 'PXB', legacyInteger: 2 });
    expect(facts.nccl.algo).toEqual({ raw: '^Tree', exclude: true, items: ['Tree'] });
    expect(facts.nccl.proto!.items).toEqual(['LL', 'LL128', 'Simple']);
    expect(facts.nccl).toMatchObject({ socketNthreads: 4, nsocksPerthread: 2 });
    expect(facts.otherVariableCount).toBe(1);
  });

  it('reads a Dockerfile’s ENV lines', () => {
    const { facts } = parseNcclEnv(
      'FROM nvcr.io/nvidia/pytorch:24.05-py3\nENV NCCL_IB_GID_INDEX=3\nENV NCCL_IB_TC=106\nRUN true\n',
    );
    expect(facts.nccl).toMatchObject({ ibGidIndex: 3, ibTc: 106 });
  });

  it('warns about values NCCL would not accept', () => {
    const { warnings } = parseNcclEnv('export NCCL_IB_GID_INDEX=three\nexport NCCL_NET_GDR_LEVEL=FAR\n');
    expect(warnings.map((w) => w.message)).toEqual([
      'NCCL_IB_GID_INDEX=three is not an integer',
      'NCCL_NET_GDR_LEVEL=FAR is not a level NCCL knows',
    ]);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseNcclEnv(fixtureText('sysctl', 'saphana-azure-anf-sysctl.conf'))).toThrow(
      NotThisKindError,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { parseIperf3 } from '../../src/parse/iperf3.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'iperf3';

describe('iperf3 parser: facts checked by hand against the text', () => {
  it('reads a TCP client: intervals with Retr and Cwnd, sender and receiver totals', () => {
    const { facts } = parseIperf3(fixtureText(KIND, 'blog-tcp-client-1stream-12g.txt'));
    expect(facts).toMatchObject({ role: 'client', protocol: 'tcp', complete: true, reverse: false });
    expect(facts.streams).toEqual([
      { id: 5, localHost: '172.16.0.4', localPort: 49068, remoteHost: '172.16.0.5', remotePort: 4545 },
    ]);
    expect(facts.intervals).toHaveLength(10);
    // Transfer is 1024-based, the rate 1000-based (iperf3 units.c).
    expect(facts.intervals[1]).toMatchObject({
      retransmits: 334,
      cwndBytes: 1.38 * 1024 ** 2,
      transferBytes: 1.38 * 1024 ** 3,
      rateGbps: 11.9,
    });
    expect(facts.total).toMatchObject({ sentGbps: 11.9, receivedGbps: 11.9, retransmits: 360 });
  });

  it('takes the totals of -P runs from the [SUM] lines', () => {
    const { facts } = parseIperf3(fixtureText(KIND, 'blog-tcp-client-10streams-summary.txt'));
    expect(facts.summaries.filter((m) => m.stream !== 'sum')).toHaveLength(20);
    expect(facts.total).toMatchObject({ sentGbps: 11.9, receivedGbps: 11.9, retransmits: 10 });
  });

  it('reads UDP jitter and loss, including the -nan% interval of a server', () => {
    const { facts } = parseIperf3(fixtureText(KIND, 'sdn-lab-udp-server-nan-interval.txt'));
    expect(facts).toMatchObject({ role: 'server', protocol: 'udp' });
    expect(facts.intervals.at(-1)).toMatchObject({
      startS: 10,
      endS: 10.04,
      jitterMs: 0.112,
      lostDatagrams: 0,
      totalDatagrams: 0,
    });
    expect(facts.total).toMatchObject({
      receivedGbps: 0.00104,
      jitterMs: 0.112,
      lostDatagrams: 0,
      totalDatagrams: 159,
      lossPercent: 0,
    });
  });

  it('reads the datagram count of a UDP client’s intervals (not a Retr column)', () => {
    const { facts } = parseIperf3(fixtureText(KIND, 'sdn-lab-udp-client-bandwidth-header.txt'));
    expect(facts.intervals[0]).toMatchObject({ totalDatagrams: 15, retransmits: null });
  });

  it('notes -R runs', () => {
    expect(parseIperf3(fixtureText(KIND, 'k8s-doc-tcp-reverse-elided.txt')).facts).toMatchObject({
      reverse: true,
      total: { receivedGbps: 13.1 },
    });
  });

  it('reads -J output: streams, intervals, end sums', () => {
    const { facts, warnings } = parseIperf3(fixtureText(KIND, 'gke-client-tcp-json-3.6.json'));
    expect(facts).toMatchObject({
      format: 'json',
      role: 'client',
      protocol: 'tcp',
      version: 'iperf 3.6',
      complete: true,
    });
    expect(facts.intervals).toHaveLength(5);
    expect(facts.total).toMatchObject({
      sentGbps: 356078146.15893316 / 1e9,
      receivedGbps: 350296574.28915393 / 1e9,
      retransmits: 414,
    });
    expect(warnings).toEqual([]);
  });

  it('warns on a JSON document cut short instead of throwing', () => {
    const text = fixtureText(KIND, 'gke-client-tcp-json-3.6.json');
    const { facts, warnings } = parseIperf3(text.slice(0, 1200));
    expect(facts.complete).toBe(false);
    expect(warnings[0]!.message).toMatch(/JSON cut short/);
  });

  it('warns about a measurement line cut short', () => {
    const { warnings } = parseIperf3(fixtureText(KIND, 'esnet-issue408-tcp-8streams-truncated.txt'));
    expect(warnings).toEqual([
      { line: 15, message: 'measurement line cut short or not understood; skipped' },
    ]);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseIperf3(fixtureText('perftest', 'wiki-ib_read_lat-mlx4-client.txt'))).toThrow(
      NotThisKindError,
    );
    expect(() => parseIperf3('{"a": 1}')).toThrow(NotThisKindError);
  });
});

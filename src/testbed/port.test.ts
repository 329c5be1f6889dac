/**
 * `tc -s qdisc show` parsing, on this kernel's output for a port shaped as port.ts shapes one
 * (htb root, bfifo 10: the buffer, bfifo 20: the 1-byte loss class): captured 2026-12-04 on the
 * development VM (Linux 6.18, iproute2 from Debian) after a ping steered into the loss class.
 */
import { describe, expect, it } from 'vitest';
import { bfifoDrops, parseQdiscDrops } from './port.js';

const TC_OUTPUT = `qdisc htb 1: root refcnt 3 r2q 10 default 0x20 direct_packets_stat 1 direct_qlen 1000
 Sent 90 bytes 1 pkt (dropped 1, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
qdisc bfifo 10: parent 1:10 limit 1000000b
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
qdisc bfifo 20: parent 1:20 limit 1b
 Sent 0 bytes 0 pkt (dropped 1, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
`;

describe('tc -s qdisc show', () => {
  it('gives every qdisc its kind, handle and dropped count', () => {
    expect(parseQdiscDrops(TC_OUTPUT)).toEqual([
      { kind: 'htb', handle: '1:', dropped: 1 },
      { kind: 'bfifo', handle: '10:', dropped: 0 },
      { kind: 'bfifo', handle: '20:', dropped: 1 },
    ]);
  });

  it("counts a port's drops once: htb's line repeats its children's", () => {
    expect(bfifoDrops(TC_OUTPUT)).toBe(1);
    expect(bfifoDrops(TC_OUTPUT.replace('(dropped 0,', '(dropped 7,'))).toBe(8);
  });

  it('finds nothing in output without qdiscs', () => {
    expect(parseQdiscDrops('')).toEqual([]);
    expect(bfifoDrops('Cannot find device "p9"\n')).toBe(0);
  });
});

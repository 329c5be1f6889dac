#!/usr/bin/env python3
"""Independent expected values for `aifabric trace` on the real 8-rank DLRM trace.

Reads facebookresearch/param @ 1e115ff et_replay/tests/inputs/dlrm_kineto.tar.gz (kept in
../shared/data/traces/param/, see SOURCES.md there) with the standard library only, and computes per
collective (the k-th NCCL kernel of every rank: one process group, no args in this old trace) the
start skew, true time (shortest duration), last arriver and per-rank waits, then the straggler
ranking (collectives with a skew only) and each straggler's cause (the one behind most of the time
lost to it), by the rules of issue 12:
lateness = last start - median start; cause 'compute' when the last arriver's preceding non-NCCL
kernel busy time ended later than the median rank's by at least half the lateness.
Writes JSON on stdout: python3 test/trace/expected_dlrm.py > test/trace/expected_dlrm.json
"""
import json
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARBALL = os.path.normpath(os.path.join(HERE, '../../../shared/data/traces/param/dlrm_kineto.tar.gz'))


def median(values):
    s = sorted(values)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def merged(intervals):
    out = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def last_end_before(busy, t):
    found = None
    for a, b in busy:
        if b <= t:
            found = b
        elif a < t:
            return t
        else:
            break
    return found


def load():
    ranks = {}
    with tarfile.open(TARBALL, 'r:gz') as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.endswith('.json'):
                continue
            trace = json.load(tar.extractfile(member))
            rank = trace['distributedInfo']['rank']
            kernels = [e for e in trace['traceEvents'] if e.get('ph') == 'X' and e.get('cat') == 'kernel']
            nccl = sorted((e for e in kernels if e['name'].startswith('nccl')), key=lambda e: e['ts'])
            compute = merged([(e['ts'], e['ts'] + e['dur']) for e in kernels if not e['name'].startswith('nccl')])
            ranks[rank] = {'file': member.name, 'nccl': nccl, 'compute': compute}
    return ranks


def main():
    ranks = load()
    order = sorted(ranks)
    count = len(ranks[order[0]]['nccl'])
    assert all(len(ranks[r]['nccl']) == count for r in order), 'ranks differ in NCCL kernel count'
    collectives = []
    stragglers = {}
    for k in range(count):
        starts = [ranks[r]['nccl'][k]['ts'] for r in order]
        durs = [ranks[r]['nccl'][k]['dur'] for r in order]
        latest = max(starts)
        last = order[starts.index(latest)]  # lowest rank among equal latest starts
        waits = [latest - s for s in starts]
        row = {
            'seq': k,
            'name': ranks[order[0]]['nccl'][k]['name'],
            'ranksSeen': order,
            'startSkewUs': latest - min(starts),
            'trueTimeUs': min(durs),
            'lastRank': last,
            'waitUs': waits,
        }
        if latest > min(starts):
            lateness = latest - median(starts)
            ends = {}
            for r in order:
                end = last_end_before(ranks[r]['compute'], ranks[r]['nccl'][k]['ts'])
                if end is not None:
                    ends[r] = end
            compute_late = ends[last] - median(list(ends.values())) if last in ends and len(ends) >= 2 else None
            cause = 'compute' if compute_late is not None and lateness > 0 and compute_late >= lateness / 2 else 'collective'
            row['latenessUs'] = lateness
            row['computeLateUs'] = compute_late
            row['cause'] = cause
            s = stragglers.setdefault(last, {'rank': last, 'lastCount': 0, 'lostUs': 0, 'compute': 0})
            s['lastCount'] += 1
            s['lostUs'] += sum(waits)
            s['compute'] += sum(waits) if cause == 'compute' else 0
        collectives.append(row)
    ranking = []
    for s in stragglers.values():
        ranking.append({'rank': s['rank'], 'lastCount': s['lastCount'], 'lostUs': s['lostUs'],
                        'cause': 'compute' if s['compute'] * 2 > s['lostUs'] else 'collective'})
    ranking.sort(key=lambda s: (-s['lostUs'], -s['lastCount'], s['rank']))
    json.dump({
        'source': 'facebookresearch/param@1e115ff et_replay/tests/inputs/dlrm_kineto.tar.gz',
        'generator': 'test/trace/expected_dlrm.py',
        'ranks': order,
        'collectives': collectives,
        'stragglers': ranking,
    }, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()

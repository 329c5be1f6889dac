/**
 * The priority RoCE traffic travels on: NCCL_IB_TC is the IP traffic class byte (DSCP << 2, ECN
 * bits 0), the NIC maps DSCP to a priority (mlnx_qos dscp2prio when trust is dscp, else the default
 * dscp >> 3), and PFC must be on for that priority. Without NCCL_IB_TC, priority 3 is assumed: the
 * RoCE default of NVIDIA NICs and switches (Cumulus/SONiC RoCE profiles).
 */
import { hostNccl } from './host-facts.js';
import { capturesOf, type HostCaptures } from './types.js';

export const DEFAULT_RDMA_PRIORITY = 3;

export interface RdmaPriority {
  priority: number;
  /** How it was derived, for messages. */
  basis: string;
}

export function rdmaPriority(host: HostCaptures): RdmaPriority {
  const tc = hostNccl(host).settings?.ibTc;
  if (tc === null || tc === undefined)
    return {
      priority: DEFAULT_RDMA_PRIORITY,
      basis: `priority ${DEFAULT_RDMA_PRIORITY} (NCCL_IB_TC not captured; the usual RoCE priority)`,
    };
  const dscp = tc >> 2;
  for (const capture of capturesOf(host, 'mlnx-qos')) {
    const mapped = capture.facts.dscpToPriority[dscp];
    if (capture.facts.trust === 'dscp' && mapped !== undefined)
      return {
        priority: mapped,
        basis: `priority ${mapped} (NCCL_IB_TC=${tc} is DSCP ${dscp}, mapped by ${capture.source})`,
      };
  }
  const priority = dscp >> 3;
  return {
    priority,
    basis: `priority ${priority} (NCCL_IB_TC=${tc} is DSCP ${dscp}, default DSCP-to-priority map)`,
  };
}

/**
 * Event types on the packet simulator's queue, every one of them: the network core's, the
 * transports' timers and the simulator's own. Simulator.run dispatches on these numbers.
 */
/** A port finished serialising: pick its next packet. */
export const EV_TX_DONE = 1;
/** A packet reached the far end of a link. */
export const EV_ARRIVE = 2;
/** A host's connections may be able to send again (pacing, window). */
export const EV_HOST_WAKE = 3;
/** A connection's retransmission timer (retransmit-timer.ts: RTO, RACK, TLP); payload: the connection id. */
export const EV_CONN_TIMER = 4;
/** A connection's other timer (RoCE's DCQCN rate timer, TCP's delayed ACK); payload: the connection id. */
export const EV_CC_TIMER = 5;
/** A PFC pause or resume frame takes effect at the upstream port, or the PFC watchdog acts (net/pfc.ts). */
export const EV_PFC = 6;
/** A workload action scheduled with `Simulator.at`. */
export const EV_APP = 7;
/** Take a sample for the result's series; not counted as pending work. */
export const EV_SAMPLE = 8;

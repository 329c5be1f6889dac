/**
 * Event types on the packet simulator's queue. 4 and 5 are the transports' timers
 * (EV_CONN_TIMER, EV_CC_TIMER in transport/connection.ts), so these numbers leave them free.
 */
/** A port finished serialising: pick its next packet. */
export const EV_TX_DONE = 1;
/** A packet reached the far end of a link. */
export const EV_ARRIVE = 2;
/** A host's connections may be able to send again (pacing, window). */
export const EV_HOST_WAKE = 3;
/** A PFC pause or resume frame takes effect at the upstream port. */
export const EV_PFC = 6;
/** A workload action scheduled with `Simulator.at`. */
export const EV_APP = 7;
/** Take a sample for the result's series; not counted as pending work. */
export const EV_SAMPLE = 8;

/**
 * Bytes a packet occupies on the wire besides its payload. Every rate in the simulator is a line
 * rate; the payload ("goodput") rate follows from these overheads.
 */

/** Ethernet preamble+SFD (8) + inter-frame gap (12): IEEE 802.3 clause 4. */
export const ETHERNET_GAP_BYTES = 20;
/** Ethernet header (14) + FCS (4). */
export const ETHERNET_FRAME_BYTES = 18;
/** IPv4 (20) + TCP (20), no options: RFC 791, RFC 9293. */
export const TCP_IP_HEADER_BYTES = 40;
/** IPv4 (20) + UDP (8) + InfiniBand BTH (12) + ICRC (4): RoCEv2, IBTA Annex A17. */
export const ROCE_HEADER_BYTES = 44;
/** Minimum Ethernet frame (64) plus preamble and gap: ACKs, NAKs, CNPs and PFC frames. */
export const MIN_FRAME_WIRE_BYTES = 84;

export const tcpWireBytes = (payload: number): number =>
  Math.max(MIN_FRAME_WIRE_BYTES, payload + TCP_IP_HEADER_BYTES + ETHERNET_FRAME_BYTES + ETHERNET_GAP_BYTES);
export const roceWireBytes = (payload: number): number =>
  Math.max(MIN_FRAME_WIRE_BYTES, payload + ROCE_HEADER_BYTES + ETHERNET_FRAME_BYTES + ETHERNET_GAP_BYTES);

/** Discrete-event engine: integer picosecond clock and a calendar event queue (over a typed-array heap for the far future). */
export { EventQueue } from './event-queue.js';
export { grownFloat64, grownInt32 } from './grow.js';
export {
  PS_PER_NS,
  PS_PER_S,
  PS_PER_US,
  nsToPs,
  psToSeconds,
  psToUs,
  secondsToPs,
  serializationPs,
} from './time.js';

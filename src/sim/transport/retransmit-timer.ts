/**
 * A connection's retransmission timer, shared by TCP and RoCE. It is lazy: at most one
 * EV_CONN_TIMER event is pending, so pushing the deadline later on every ACK schedules nothing;
 * an event that fires before the current deadline re-arms itself for it.
 */
import { EV_CONN_TIMER } from '../event-kinds.js';
import type { SimContext } from './connection.js';

export class RetransmitTimer {
  /** When the timer expires; 0 while it is disarmed. */
  private deadline = 0;
  /** Time of the pending EV_CONN_TIMER event, -1 when none is pending. */
  private eventTime = -1;

  constructor(
    private readonly ctx: SimContext,
    private readonly connId: number,
  ) {}

  get armed(): boolean {
    return this.deadline !== 0;
  }

  arm(deadline: number): void {
    this.deadline = deadline;
    if (this.eventTime < 0 || this.eventTime > deadline) {
      this.eventTime = deadline;
      this.ctx.schedule(deadline, EV_CONN_TIMER, this.connId);
    }
  }

  disarm(): void {
    this.deadline = 0;
  }

  /**
   * The connection's EV_CONN_TIMER fired at `timePs`: true when the deadline has really passed (the
   * timer is then disarmed); false for a stale event, a disarmed timer, or one moved later.
   */
  expired(timePs: number): boolean {
    if (timePs !== this.eventTime) return false;
    this.eventTime = -1;
    if (this.deadline === 0) return false;
    if (timePs < this.deadline) {
      this.arm(this.deadline);
      return false;
    }
    this.deadline = 0;
    return true;
  }
}

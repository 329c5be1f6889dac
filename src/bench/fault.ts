/**
 * One latch per rank for the first fault seen anywhere (control channel, data sockets, watchdog).
 * Everything that waits races against it, so a dead peer ends every pending wait at once with a
 * message naming the rank and host that failed, instead of a hang.
 */
import { EnvironmentError } from '../core/errors.js';

export class FaultLatch {
  private error: EnvironmentError | undefined;
  private readonly listeners = new Set<(error: EnvironmentError) => void>();

  get fault(): EnvironmentError | undefined {
    return this.error;
  }

  /** Record the first fault; later ones are consequences and are dropped. */
  trip(message: string): void {
    if (this.error) return;
    const error = new EnvironmentError(message);
    this.error = error;
    for (const listener of [...this.listeners]) listener(error);
    this.listeners.clear();
  }

  /** Call `listener` once if the latch trips (at once if it has); returns a function that unsubscribes. */
  onTrip(listener: (error: EnvironmentError) => void): () => void {
    if (this.error) {
      listener(this.error);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  throwIfTripped(): void {
    if (this.error) throw this.error;
  }

  /**
   * Await `work` unless the latch trips first. Each guard unsubscribes when `work` settles, so
   * millions of iterations leave nothing behind (a race against one shared pending promise would).
   */
  guard<T>(work: Promise<T>): Promise<T> {
    this.throwIfTripped();
    return new Promise<T>((resolve, reject) => {
      const unsubscribe = this.onTrip(reject);
      work.then(
        (value) => {
          unsubscribe();
          resolve(value);
        },
        (error: unknown) => {
          unsubscribe();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

/** How a rank is named in every fault message: rank, host and pid when known. */
export function describeRank(rank: number, host?: string, pid?: number): string {
  if (host === undefined) return `rank ${rank}`;
  return pid === undefined ? `rank ${rank} (host ${host})` : `rank ${rank} (host ${host}, pid ${pid})`;
}

/**
 * Windowed running maximum over the last `window` rounds, kept as three samples (best, second,
 * third), as Linux lib/win_minmax.c (Kathleen Nichols' algorithm) keeps BBR's bandwidth filter.
 */
export class WindowedMax {
  private readonly t = [0, 0, 0];
  private readonly v = [0, 0, 0];

  get value(): number {
    return this.v[0]!;
  }

  reset(time: number, value: number): number {
    this.t.fill(time);
    this.v.fill(value);
    return value;
  }

  /** lib/win_minmax.c minmax_running_max. */
  update(window: number, time: number, value: number): number {
    const t = this.t;
    const v = this.v;
    if (value >= v[0]! || time - t[2]! > window) return this.reset(time, value);
    if (value >= v[1]!) {
      t[2] = t[1] = time;
      v[2] = v[1] = value;
    } else if (value >= v[2]!) {
      t[2] = time;
      v[2] = value;
    }
    return this.subwinUpdate(window, time, value);
  }

  /** lib/win_minmax.c minmax_subwin_update: age the samples as the window passes. */
  private subwinUpdate(window: number, time: number, value: number): number {
    const t = this.t;
    const v = this.v;
    const dt = time - t[0]!;
    if (dt > window) {
      t[0] = t[1]!;
      v[0] = v[1]!;
      t[1] = t[2]!;
      v[1] = v[2]!;
      t[2] = time;
      v[2] = value;
      if (time - t[0] > window) {
        t[0] = t[1];
        v[0] = v[1];
        t[1] = t[2];
        v[1] = v[2];
        t[2] = time;
        v[2] = value;
      }
    } else if (t[1] === t[0] && dt > window / 4) {
      t[2] = t[1] = time;
      v[2] = v[1] = value;
    } else if (t[2] === t[1] && dt > window / 2) {
      t[2] = time;
      v[2] = value;
    }
    return v[0]!;
  }
}

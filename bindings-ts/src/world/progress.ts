// What a long run shows of its progress, in the same words wherever it is shown: the line of
// `beacon run` in a terminal (cli/progress.ts, from beacon-sim's figures) and the readout of the
// studio page (studio/progressView.ts, from the WebAssembly world's). No node API here: the
// page's bundle imports this module too.

/** What the readout says of a run at one moment. */
export interface ProgressFigures {
  /** World time reached, ms. */
  deviceMs: number;
  /** Device time advanced per real time elapsed (measured, not the speed asked for). */
  speed: number;
  /** Devices powered (battery not empty) whose app runs. */
  alive: number;
  devices: number;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** Device time as "03:04:05", or "2d 03:04:05" past a day. */
export function deviceClock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const days = Math.floor(s / 86400);
  const hms = (h: number): string => `${pad(h)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  return days > 0 ? `${days}d ${hms(Math.floor(s / 3600) % 24)}` : hms(Math.floor(s / 3600));
}

/**
 * A factor of real time: whole from 10 up (the digits after the point of "1011×" say nothing),
 * two significant digits below (a world at real time, or one that cannot keep up with ×10, is
 * read there; a fleet far slower than real time shows as such, not as 0). beacon-sim's own
 * line on a terminal (host_progress.c) writes it the same way ("%.0f", "%.2g").
 */
export function speedText(speed: number): string {
  return speed >= 10 ? String(Math.round(speed)) : String(Number(speed.toPrecision(2)));
}

export function progressText(f: ProgressFigures): string {
  return `device time ${deviceClock(f.deviceMs)}, ${speedText(f.speed)}× real time, ${f.alive} of ${f.devices} device${f.devices === 1 ? '' : 's'} alive`;
}

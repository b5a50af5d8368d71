// The run's progress in the toolbar, in the words of `beacon run`'s line (world/progress.ts):
// the device time reached, the speed measured against real time and the devices alive. The
// worker measures it at most four times a second, so it is written as it comes, not per frame.
// It stays after the run ends or is stopped: where the run got to and how many were still alive.
import { progressText, ProgressFigures } from '../src/world/progress';
import { $ } from './page';

export function showProgress(p: ProgressFigures): void {
  const e = $('progress');
  e.textContent = progressText(p);
  // For tests and the benchmark: the figures without parsing the text.
  e.dataset.deviceMs = String(p.deviceMs);
  e.dataset.speed = String(p.speed);
  e.dataset.alive = String(p.alive);
  e.dataset.devices = String(p.devices);
}

/** A new run: nothing of the last one's figures. */
export function clearProgress(): void {
  const e = $('progress');
  e.textContent = '';
  for (const k of ['deviceMs', 'speed', 'alive', 'devices']) delete e.dataset[k];
}

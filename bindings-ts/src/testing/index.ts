// beacon-tools/testing: tests of micro-apps on simulated devices and on rigs, on node's test
// runner (docs/testing.md).
import { test } from 'node:test';
import { Skipped, TestContextLike, World, world, WorldOptions } from './world';

export { ConsoleLines, LineMatcher } from './console';
export { ListenDevice, startListen, StartListenOptions } from './listen';
export { openRig, openSerialConsole, RigSession } from './rig';
export { AppInput, Device, DeviceOptions, DeviceResult, LedState, Skipped, Stimulus, TestContextLike, TraceRecord, World, world, WorldOptions, WorldResult } from './world';

/**
 * A node test with a fresh world: `deviceTest('name', async (w) => { ... })`. What the world
 * cannot do where it runs (a stimulus on a rig) ends the test as skipped, with the reason.
 */
export function deviceTest(name: string, fn: (w: World, t: TestContextLike) => Promise<void>, opts: WorldOptions = {}): void {
  test(name, async (t) => {
    const w = world(t, opts);
    try {
      await fn(w, t);
    } catch (err) {
      if (err instanceof Skipped) return;
      throw err;
    }
  });
}

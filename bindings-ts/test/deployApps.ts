// The two apps the deployment tests hand a device (cloudDeploy.test.ts against the simulator,
// cloudDeployFirmware.test.ts against the firmware on nrf52_bsim).

/** A syncs, and once more after each sync that ended (three at most): the second sync is the
 * one that reports what became of a package the first one fetched. */
export const APP_A = `let syncs = 0;
print('A running');
cloud.enqueue('hello', { from: 'A' }, { volatile: false });
sync.setEndHandler((error) => {
  print('A sync ' + (error === undefined ? 'ok' : error.message));
  if (++syncs < 3) sync.now();
});
sync.now();
`;

/** B's bytecode carries a text of `padRepeats` x 16 characters, so that its package takes more
 * than one chunk (read in a loop, so that the compiler cannot fold it away); it prints their sum. */
export const appBSource = (padRepeats: number): string => `const pad = '${'0123456789abcdef'.repeat(padRepeats)}';
let sum = 0;
for (let i = 0; i < pad.length; i++) sum += pad.charCodeAt(i);
print('B running ' + sum);
sync.setEndHandler((error) => print('B sync ' + (error === undefined ? 'ok' : error.message)));
sync.now();
`;

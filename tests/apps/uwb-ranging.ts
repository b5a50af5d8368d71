// world: uwb-ranging.world.json
// run: --api 0.1.5 --for 90s
// Two devices ranging over UWB: the tag (initiator) measures the anchor (responder, same panId)
// every 5 s as it walks away from 5 m to 65 m, within its window of 2..40 m; the responder of
// another panId never answers; the tag stops at 50 s and its promise resolves. Bad arguments
// throw ESR1701 (for the role) and ESR1703 (options).
const me = sys.getPublicId().slice(-1);
const ids: { [k: string]: string } = { '1': 'anchor', '2': 'tag', '3': 'other' };
const attempt = (what: string, f: () => void) => {
  try {
    f();
    print(`${what}: accepted`);
  } catch (e) {
    print(`${what}: ${(e as Error).message}`);
  }
};
if (me === '1') {
  attempt('responder with a callback', () => uwb.start(uwb.Role.RESPONDER, {}, () => {}));
  attempt('responder with maxDistance', () => uwb.start(uwb.Role.RESPONDER, { maxDistance: 10 }));
  attempt('initiator without a callback', () => uwb.start(uwb.Role.INITIATOR, { panId: 7 }));
  attempt('mode 2', () => uwb.start(uwb.Role.INITIATOR, { mode: 2 }, () => {}));
  attempt('minDistance above maxDistance', () => uwb.start(uwb.Role.INITIATOR, { minDistance: 5, maxDistance: 4 }, () => {}));
  uwb.start(uwb.Role.RESPONDER, { panId: 7 }).then(() => print('never: the anchor ranges until the end'));
} else if (me === '2') {
  uwb
    .start(uwb.Role.INITIATOR, { panId: 7, minDistance: 2, maxDistance: 40 }, (m) => {
      print(`${app.getUptime() / 1000} s: ${ids[m.id.slice(-1)]} at ${m.dist.toFixed(1)} m, lqi ${m.lqi}`);
    })
    .then(() => print(`${app.getUptime() / 1000} s: ranging stopped, promise resolved`));
  timers.single(50000, () => uwb.stop());
} else {
  uwb.start(uwb.Role.RESPONDER, { panId: 8 });
}

// world: uwb-ranging.world.json
// run: --api 0.1.5 --for 90s
// Two devices ranging over UWB: the tag (initiator) measures the anchor (responder, same panId)
// every 5 s as it walks away from 5 m to 65 m, within its window of 2..40 m; the anchor's own
// callback (optional for a responder as for an initiator) hears the same distances, naming the
// tag; the responder of another panId never answers; the tag stops at 50 s and its promise
// resolves. Bad arguments reject the returned promise (nothing is thrown): ESR1701 for the
// role, ESR1703 for the options, whether the glue or the service refuses them.
const me = sys.getPublicId().slice(-1);
const ids: { [k: string]: string } = { '1': 'anchor', '2': 'tag', '3': 'other' };
const attempt = (what: string, f: () => Promise<void>) => {
  try {
    f().then(
      () => print(`${what}: resolved`),
      (e: Error) => print(`${what}: rejected: ${e.message}`)
    );
  } catch (e) {
    print(`${what}: thrown (wrong): ${(e as Error).message}`);
  }
};
if (me === '1') {
  attempt('role 5', () => uwb.start(5));
  attempt('panId not a number', () => uwb.start(uwb.Role.INITIATOR, { panId: 'x' as unknown as number }));
  attempt('mode 2', () => uwb.start(uwb.Role.INITIATOR, { mode: 2 }, () => {}));
  attempt('minDistance above maxDistance', () => uwb.start(uwb.Role.INITIATOR, { minDistance: 5, maxDistance: 4 }, () => {}));
  uwb
    .start(uwb.Role.RESPONDER, { panId: 7, maxDistance: 30 }, (m) => {
      print(`${app.getUptime() / 1000} s: heard the ${ids[m.id.slice(-1)]} at ${m.dist.toFixed(1)} m`);
    })
    .then(() => print('never: the anchor ranges until the end'));
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

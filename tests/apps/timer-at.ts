// run: --for 1h --utc 1767225600000
// timers.at fires at a UTC time given as milliseconds or as a Date; a past time fires at once.
const t0 = Date.now(); // 2026-01-01T00:00:00Z, from --utc
print(`now ${new Date(t0).toISOString()}`);
timers.at(t0 + 90000, () => print(`ms timer at ${new Date(Date.now()).toISOString()}`));
timers.at(new Date(t0 + 30 * 60000), () => print(`Date timer at ${new Date(Date.now()).toISOString()}`));
timers.at(t0 - 5000, () => print(`past timer at ${Date.now() - t0} ms`));

// run: --for 2d
// Interval strings and numbers: '200ms', '30s', '1h', '12h', '10 secs', '1 day' and plain ms.
const start = app.getUptime();
const cases: [string | number, number][] = [
  ['200ms', 200], ['30s', 30000], ['1h', 3600000], ['12h', 43200000], [1500, 1500],
  ['10 secs', 10000], ['1 day', 86400000], ['2 min', 120000],
];
for (const [interval, expected] of cases) {
  timers.single(interval, () => {
    const took = app.getUptime() - start;
    print(`${JSON.stringify(interval)}: ${took === expected ? 'ok' : `wrong, ${took} ms`}`);
  });
}
print(`toMs('1h') = ${toMs('1h')}, toSec('200ms') = ${toSec('200ms')}, toSec(30) = ${toSec(30)}`);

// Every fix delivered: minInterval 1 s, no distance filter, no timeout (bench/location.sh).
var n = 0;
location.startUpdates(function (p) { n += p.diff >= 0 ? 1 : 0; }, { minInterval: 1, timeout: 0 });

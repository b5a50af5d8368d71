// A tracker reporting every 5 minutes for an hour (bench/location.sh). __OPTIONS__ adds
// maxFixWait (API 0.2.6) or nothing (0.1.5: GNSS stays on for the whole session).
var n = 0;
location.startUpdates(function (p) { n++; }, { minInterval: 300, timeout: 3600__OPTIONS__ });

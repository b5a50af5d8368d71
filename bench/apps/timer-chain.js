// Benchmark: COUNT single timers, each started by the previous one's callback.
// bench/run.sh builds it with COUNT = 100000 and COUNT = 0 and subtracts.
var COUNT = __COUNT__;
var n = 0;
function next() {
  if (++n < COUNT) timers.single(1, next);
}
if (COUNT > 0) timers.single(1, next);

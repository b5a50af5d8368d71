// Benchmark: a colour runs round the LED ring, one LED every 40 ms (25 changes a second, each
// two LED records), for the studio's frames-per-second figure (bench/studio.sh).
var n = io.getMaxLeds();
var i = 0;
var colours = [io.Color.RED, io.Color.GREEN, io.Color.BLUE];
timers.repeat(40, function () {
  io.led(i, false);
  i = (i + 1) % n;
  io.setLedColor(i, colours[i % colours.length]);
  io.led(i, true);
});

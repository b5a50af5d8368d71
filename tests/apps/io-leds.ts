// io: ring LEDs on the default device (lte-beacon, 3 LEDs): all and one at a time, colours as
// arrays, io.Color members, colour names, #rgb and #rrggbb, brightness, side LED groups left to
// the system, and the refusals of an LED that does not exist and of a colour that is none.
print(`LEDs: ${io.getMaxLeds()}`);
io.setLedColor(io.Color.RED);
io.led(true);
io.led(1, false);
io.setLedColor(2, 'navy');
io.setLedColor(0, '#0f8');
io.setLedColor(1, '#FF8000');
io.setLedBrightness(0.5);
io.setLedBrightness(2, 0.25);
io.led(io.Led.GPS, true);
io.setLedColor(io.Led.LTE, io.Color.BLUE);
for (const attempt of [() => io.led(3, true), () => io.setLedColor('nocolour'), () => io.setLedColor('#12')]) {
  try {
    attempt();
  } catch (e) {
    print(`${(e as Error).name}: ${(e as Error).message}`);
  }
}
io.led(false);

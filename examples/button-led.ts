// Buttons and LEDs: a short press cycles the ring through colours, a long press toggles a slow
// blink, a very long press turns everything off. The side button, where there is one, shows the
// battery level as a colour.

const PALETTE: readonly (readonly number[])[] = [io.Color.RED, io.Color.GREEN, io.Color.BLUE, io.Color.YELLOW, io.Color.WHITE];

type Mode = 'off' | 'steady' | 'blink';

class Ring {
  private colour = 0;
  private mode: Mode = 'off';
  private blinker: RepeatTimer | undefined;
  private lit = false;

  next(): void {
    this.colour = (this.colour + 1) % PALETTE.length;
    if (this.mode === 'off') this.mode = 'steady';
    this.show(true);
  }

  toggleBlink(): void {
    if (this.blinker) {
      this.blinker.stop();
      this.blinker = undefined;
      this.mode = 'steady';
      this.show(true);
      return;
    }
    this.mode = 'blink';
    this.blinker = timers.repeat('700ms', () => this.show(!this.lit));
  }

  off(): void {
    this.blinker?.stop();
    this.blinker = undefined;
    this.mode = 'off';
    this.show(false);
  }

  describe(): string {
    return `${this.mode}, colour ${this.colour}`;
  }

  private show(on: boolean): void {
    this.lit = on;
    if (on) io.setLedColor(PALETTE[this.colour]);
    io.led(on);
  }
}

function batteryColour(percent: number): readonly number[] {
  if (percent > 60) return io.Color.GREEN;
  if (percent > 25) return io.Color.ORANGE;
  return io.Color.RED;
}

const ring = new Ring();
let presses = 0;

io.press(() => {
  presses++;
  ring.next();
  print(`short press ${presses}: ${ring.describe()}`);
}, io.PressType.SHORT);

io.press(() => {
  ring.toggleBlink();
  print(`long press: ${ring.describe()}`);
}, io.PressType.LONG);

io.press(() => {
  ring.off();
  print('very long press: off');
}, io.PressType.VERY_LONG);

io.press(
  io.Button.SIDE,
  () => {
    const level = sensors.battery.getPerc();
    io.setLedColor(0, batteryColour(level));
    timers.single('2s', () => ring.describe() === 'off' && io.led(0, false));
  },
  io.PressType.SHORT,
);

print(`ready: ${io.getMaxLeds()} LEDs`);

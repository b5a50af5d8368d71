// A heartbeat that blinks a status line every few seconds, counts down a launch, and stops
// itself: timers, handles and promises in modern TypeScript (lowered to ES5 for the device).

class Heartbeat {
  private beats = 0;
  private readonly timer: RepeatTimer;

  constructor(private readonly label: string, interval: string = '5s') {
    this.timer = timers.repeat(interval, () => this.beat());
  }

  private beat(): void {
    this.beats++;
    print(`[${this.clock()}] ${this.label}: beat ${this.beats}`);
  }

  stop(): number {
    this.timer.stop();
    return this.beats;
  }

  clock(): string {
    const s = Math.floor(app.getUptime() / 1000);
    const pad = (n: number, width = 2) => `0000${n}`.slice(-width);
    return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
  }
}

const heart = new Heartbeat('status');

const countdown = timers.count('1s', 3, (left) => {
  print(`[${heart.clock()}] launch in ${left + 1}...`);
});

countdown
  .end()
  .then(() => {
    print(`[${heart.clock()}] lift-off`);
    return timers.single('12s', () => {}).end();
  })
  .then(() => {
    const beats = heart.stop();
    print(`[${heart.clock()}] done after ${beats} beats; stopping the app`);
    app.stop();
  });

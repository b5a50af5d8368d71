// run: --for 10s --utc 2026-01-01T00:00:00Z
// world: cloud-power-cut.world.json
// Power lost while an event is enqueued and while a sync deletes acknowledged events: every
// non-volatile event that cloud.enqueue accepted reaches the cloud exactly once (the trace's
// cloud-event records: no sequence number twice, none missing), and numbers never repeat
// across the reboots.
const boot = sys.getUptime();
let n = 0;
print(`boot at ${boot} s`);
timers.repeat('500ms', () => {
  n++;
  cloud.enqueue('tick', { n, since: 'boot' }, { volatile: false });
  print(`queued ${n}`);
  if (n % 4 === 0) sync.now();
});
sync.setEndHandler((error) => print(`synced: ${error === undefined ? 'ok' : error.message}`));

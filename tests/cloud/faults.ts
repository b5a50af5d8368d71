// The device of the cloud fault suite (bindings-ts/test/cloudFaults.test.ts): every 10 s it
// queues ten numbered non-volatile events and one volatile one, and syncs after every tenth
// round (110 events: four batches of at most 32), and ten minutes after the thirtieth round a
// last round of ten, synced at once. Each event carries the boot it was queued in, so numbers
// stay unique across power cuts; "queued B N" is printed only once cloud.enqueue has
// returned (the event is in flash), and each message the cloud sends is printed as it arrives.
const boot = ((storage.read(1) as number | undefined) ?? 0) + 1;
storage.save(1, boot);
print(`boot ${boot}`);
let n = 0;
cloud.onReceive((msg) => print(`message ${msg.type} ${JSON.stringify(msg.payload)}`));
sync.setEndHandler((error) => print(`sync ${error === undefined ? 'ok' : error.message}`));
const rounds = timers.repeat('10s', () => {
  for (let i = 0; i < 10; i++) {
    n++;
    cloud.enqueue('n', { boot, n }, { volatile: false });
    print(`queued ${boot} ${n}`);
  }
  cloud.enqueue('v', { boot, n });
  if (n % 100 === 0) sync.now();
  if (n === 300) {
    rounds.stop();
    // Ten minutes on, a last round and a sync of its own: a sync with batches after the one
    // that took the rest, whatever the retries did (the queue of this app never counts as
    // nearly full, which used to bring that sync).
    timers.single('10 min', () => {
      for (let i = 0; i < 10; i++) {
        n++;
        cloud.enqueue('n', { boot, n }, { volatile: false });
        print(`queued ${boot} ${n}`);
      }
      sync.now();
    });
  }
});

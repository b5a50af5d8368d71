// run: --for 8s
// world: storage-power-cut.world.json
// Power lost in the middle of storage.save: after the reboot the record holds the old value or the
// new one, whole, never a mix; the other records are untouched; the device says it lost power.
app.setErrorHandler((type, error) => print(`handler: type ${type}: ${(error as Error).message}`));
interface Counter { generation: number; padding: string }
const pad = new Array(2001).join('p');
const before = storage.read(1) as Counter | undefined;
const other = storage.read(2);
print(`boot at ${sys.getUptime()} s: record 1 generation ${before ? before.generation : 'none'}, padding ${before ? before.padding.length : 0}, record 2 ${JSON.stringify(other)}`);
if (!before) {
  storage.save(1, { generation: 1, padding: pad });
  storage.save(2, 'untouched');
}
timers.repeat('1500ms', () => {
  const now = storage.read(1) as Counter;
  print(`saving generation ${now.generation + 1}`);
  storage.save(1, { generation: now.generation + 1, padding: pad });
  print(`saved generation ${now.generation + 1}`);
});

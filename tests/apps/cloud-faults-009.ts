// run: --for 2s --cloud none --api 0.0.9
// world: cloud-faults.world.json
// In 0.0.9 a flash failure is the uncoded "Storage system error".
timers.single('1500ms', () => {
  try {
    cloud.enqueue('e', { n: 1 });
    print('queued');
  } catch (e) {
    print(`threw ${(e as Error & { code?: string }).code}: ${(e as Error).message}`);
  }
});

// An asset tracker: every few minutes it scans for tagged assets nearby, keeps the strongest
// sighting of each, and queues a report for the cloud. Assets are iBeacons of one company UUID
// or devices that advertise a name starting with "AT-".

const ASSET_UUID = 'f7826da64fa24e988024bc5b71e0893e';
const SCAN_EVERY = '5 min';
const SCAN_FOR = '8s';
const MIN_RSSI = -90;

interface Sighting {
  id: string;
  rssi: number;
  channel: number;
  seen: number;
}

class AssetTable {
  private readonly best: { [id: string]: Sighting } = {};
  private count = 0;

  record(id: string, rssi: number, channel: number): void {
    const prev = this.best[id];
    if (!prev) this.count++;
    if (!prev || rssi > prev.rssi) this.best[id] = { id, rssi, channel, seen: app.getUptime() };
  }

  get size(): number {
    return this.count;
  }

  /** The sightings, strongest first, and a fresh table. */
  drain(): Sighting[] {
    const list = Object.keys(this.best).map((k) => this.best[k]);
    for (const k of Object.keys(this.best)) delete this.best[k];
    this.count = 0;
    return list.sort((a, b) => b.rssi - a.rssi);
  }
}

/** The asset id a packet carries, if it is one of ours. */
function assetId(record: ScanRecord): string | undefined {
  const name = record.name;
  if (name !== undefined && name.indexOf('AT-') === 0) return name.slice(3);
  const data = record.manufData;
  // Apple iBeacon: company 0x004c, type 0x02, length 0x15, then the 16-byte UUID, major, minor.
  if (data && data.byteLength >= 25) {
    const hex = toHex(data);
    if (hex.slice(0, 8) === '4c000215' && hex.slice(8, 40) === ASSET_UUID) return `ib-${hex.slice(40, 48)}`;
  }
  return undefined;
}

const table = new AssetTable();
let rounds = 0;

async function scanRound(): Promise<void> {
  rounds++;
  await ble.startScan(
    (record) => {
      if (record.rssi < MIN_RSSI) return;
      const id = assetId(record);
      if (id !== undefined) table.record(id, record.rssi, record.channel);
    },
    SCAN_FOR,
    { deduplicate: false, passive: true },
  );
  const seen = table.drain();
  const [nearest] = seen;
  const bytes = cloud.enqueue(
    'assets',
    {
      round: rounds,
      count: seen.length,
      nearest: nearest ? { id: nearest.id, rssi: nearest.rssi } : null,
      assets: seen.slice(0, 20).map(({ id, rssi, channel }) => ({ id, rssi, ch: channel })),
      battery: sensors.battery.getPerc(),
    },
    { volatile: seen.length === 0 },
  );
  print(`round ${rounds}: ${seen.length} assets, ${bytes} bytes queued`);
}

app.setErrorHandler((type, error) => {
  print(`error (${type}): ${error.message}`);
});

timers.repeat(SCAN_EVERY, () => {
  scanRound().catch((e: Error) => print(`scan failed: ${e.message}`));
});
scanRound().catch((e: Error) => print(`scan failed: ${e.message}`));

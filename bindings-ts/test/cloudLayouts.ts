// The two ways `beacon cloud` is deployed, as one interface for the tests that must hold in both:
// one process with its embedded broker, or N stateless worker processes behind one Mosquitto on
// a shared subscription. A device sees the same protocol and the same acknowledgements in both.
import * as mqtt from 'mqtt';
import { writeMosquittoAuth } from '../src/cloud/mosquitto';
import { openStore } from '../src/cloud/store';
import { beaconSync, CloudProcess, freePort, MosquittoServer, startCloudProcess, waitFor } from '../src/cloud/testkit';

export interface CloudLayout {
  name: string;
  db: string;
  token: string;
  /** The loopback port devices connect to (the embedded broker's, or Mosquitto's). */
  mqttPort: number;
  /** The HTTP API of a running cloud process (the first worker). */
  httpUrl(): string;
  /** Every cloud process that runs now. */
  processes(): CloudProcess[];
  /** Issue a device's credentials (before or while the cloud runs); returns its password. */
  addDevice(id: string): Promise<string>;
  /** Start the cloud (every worker). */
  start(): Promise<void>;
  /** Kill every cloud process at once (SIGKILL by default). */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

function issue(db: string, id: string): string {
  const add = beaconSync(['cloud', 'device', 'add', id, '--db', db, '--json']);
  if (add.status !== 0) throw new Error(`device add failed: ${add.stderr}`);
  return (JSON.parse(add.stdout) as { password: string }).password;
}

export async function singleProcess(db: string, token: string): Promise<CloudLayout> {
  const mqttPort = await freePort();
  const args = ['--db', db, '--port', String(mqttPort), '--http-port', '0', '--token', token];
  let cloud: CloudProcess | undefined;
  return {
    name: 'one process',
    db,
    token,
    mqttPort,
    httpUrl: () => (cloud as CloudProcess).httpUrl,
    processes: () => (cloud ? [cloud] : []),
    addDevice: async (id) => issue(db, id),
    start: async () => {
      cloud = await startCloudProcess(args);
    },
    kill: async (signal = 'SIGKILL') => {
      await cloud?.kill(signal);
      cloud = undefined;
    },
  };
}

/** Wait until Mosquitto takes a device's new credentials (it rereads its password file on SIGHUP, in its own time). */
export async function brokerKnows(url: string, id: string, password: string): Promise<void> {
  await waitFor(`the broker to take ${id}'s credentials`, async () => {
    try {
      const c = await mqtt.connectAsync(url, { clientId: id, username: id, password, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 2000 });
      await c.endAsync();
      return true;
    } catch {
      return undefined;
    }
  });
}

export interface WorkersLayout extends CloudLayout {
  /** Start worker i again after it was killed (or start one more). */
  startOne(i: number): Promise<CloudProcess>;
}

/** N workers (`beacon cloud --broker --db`) behind `broker`, all on the shared subscription; `extra`: more options for each. */
export async function workers(db: string, token: string, broker: MosquittoServer, count = 2, extra: string[] = []): Promise<WorkersLayout> {
  const args = ['--db', db, '--broker', broker.serviceUrl, '--mosquitto-dir', broker.dir, '--mosquitto-pid', broker.pidFile, '--http-port', '0', '--token', token, ...extra];
  let running: CloudProcess[] = [];
  return {
    name: `${count} workers`,
    db,
    token,
    mqttPort: broker.port,
    httpUrl: () => running[0].httpUrl,
    processes: () => running,
    addDevice: async (id) => {
      const password = issue(db, id);
      const store = await openStore(db);
      try {
        await writeMosquittoAuth(store, broker.dir);
      } finally {
        await store.close();
      }
      broker.reload();
      await brokerKnows(broker.url, id, password);
      return password;
    },
    start: async () => {
      running = await Promise.all(Array.from({ length: count }, () => startCloudProcess(args)));
    },
    startOne: async (i) => {
      running[i] = await startCloudProcess(args);
      return running[i];
    },
    kill: async (signal = 'SIGKILL') => {
      await Promise.all(running.map((c) => c.kill(signal)));
      running = [];
    },
  };
}

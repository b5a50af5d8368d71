// The options of `beacon cloud load` (the load generator, src/cloud/loadGen.ts), part of the
// cloud command's spec. Data only: the help loads nothing of the generator.
import type { OptionSpec } from './args';

export const cloudLoadOptions: readonly OptionSpec[] = [
  { name: 'devices', value: '<n>', help: "load: devices in the fleet (1 to 1,000,000); their credentials are issued in --db once and reused by later runs; deploy: the devices' public ids, comma-separated" },
  { name: 'events', value: '<n>', help: 'load: events each device queues per sync (default 10)' },
  { name: 'batch', value: '<n>', help: 'load: events per batch (1 to 256, default 10)' },
  { name: 'payload', value: '<bytes>', help: "load: CBOR size of each event's payload (1 to 8192, default 200)" },
  { name: 'window', value: '<n>', help: 'load: batches a device keeps unacknowledged at most (default 4, as the reference client)' },
  { name: 'period', value: '<interval>', help: 'load: each device syncs every interval (with new events) until --duration; default: each syncs once' },
  { name: 'duration', value: '<interval>', help: 'load: with --period, how long devices keep syncing (required); without, the longest the run may take (default 1h)' },
  { name: 'connections', value: '<n>', help: 'load: connections open at a time (default: the devices, at most 10000); the other devices wait their turn' },
  { name: 'processes', value: '<n>', help: 'load: worker processes the devices are spread over (default: the number of cores)' },
  { name: 'timeout', value: '<interval>', help: 'load: a sync with no answer for this long fails and is retried with its unacknowledged events (default 20s)' },
  { name: 'hold', value: '<interval>', help: 'load: keep each connection open this long after its sync (to hold many connections at once)' },
  { name: 'tls', help: 'load: connect with TLS (as an mqtts:// --broker does)' },
  { name: 'ca', value: '<ca.pem>', help: "load: the CA certificate the broker's is checked against (default: the system's)" },
];

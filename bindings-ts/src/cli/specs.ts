// The commands and their options; parsing and help are both driven from here.
import { API_VERSIONS, DEFAULT_API_VERSION } from '../codegen/versions';
import { CommandSpec, OptionSpec } from './args';
import { cloudLoadOptions } from './cloudLoadSpec';

const ENGINE_NAMES = 'duktape|jerryscript';

const apiOption: OptionSpec = {
  name: 'api',
  value: '<version>',
  help: `API version to build for: ${API_VERSIONS.join(', ')} (default ${DEFAULT_API_VERSION})`,
};
const engineOption: OptionSpec = {
  name: 'engine',
  value: `<${ENGINE_NAMES}>`,
  help: 'engine to compile for (default duktape)',
};

// --board chose the bare-metal image's board, mps2-an386 or mps2-an505 (Cortex-M33). The Zephyr
// firmware on mps2/an521 now gives the M33's figures, so the image has one board and no option.
const retiredBoardOption: OptionSpec = {
  name: 'board',
  value: '<board>',
  help: '',
  retired: "the emulated image has one board, mps2-an386 (the nRF52840's Cortex-M4F, --target qemu); " +
    "for the Cortex-M33 (the nRF9160's core, mps2-an505 before) run the Zephyr firmware on mps2/an521: beacon run --target zephyr-qemu",
};

export const buildSpec: CommandSpec = {
  name: 'build',
  brief: 'compile a micro-app (.ts/.js) into an app package (.bapp)',
  summary: 'Compile a micro-app into an app package (.bapp): type-check it against the API version, lower it to ES5, bundle its imports, minify it and compile it to engine bytecode. The source map goes beside the package (<package>.map); a size report goes to stderr.',
  positionals: [{ name: 'source', help: 'the app: a .ts or .js file' }],
  options: [
    { name: 'output', short: 'o', value: '<file>', help: 'package to write (default: the source path with .bapp)' },
    apiOption,
    engineOption,
    { name: 'sign', value: '<key.pem>', help: "sign the package with this ECDSA P-256 private key (from 'beacon keygen')" },
    { name: 'json', help: 'print the build report as one JSON object on stdout' },
    { name: 'minify', value: '<lines|dense|none>', help: 'lines (default): a statement per line, for error locations on engines that report lines; dense: the smallest Duktape bytecode; none' },
    { name: 'keep', help: 'keep the ES5 and the minified script next to the package (<name>.es5.js, <name>.min.js)' },
    { name: 'no-cache', help: 'compile even if the build cache has the package (BEACON_BUILD_CACHE=off: no cache for any command)' },
  ],
  details:
    'Device errors name the minified script (app.min.js:<line>); `beacon run` shows them at their place in the source, and `beacon trace <package>` does the same for a device log. ' +
    'An app built before with the same sources, options, typings, compiler and package tool comes from the build cache (~/.cache/beacon-tools, or $BEACON_CACHE_DIR): see docs/compiler.md.',
};

export const runSpec: CommandSpec = {
  name: 'run',
  brief: 'run a micro-app or an app package on the simulator',
  summary: 'Run micro-apps on simulated devices. A .ts or .js source is built first (into a temporary package); print() output appears as it happens. Each app runs on its own device of the default profile, or on the devices of a world scenario (--world).',
  positionals: [{ name: 'app', help: 'a .ts or .js source, or a .bapp package; one per device (one for all devices of a scenario), or none when the scenario names them. A .json file is the scenario (as --world)', optional: true, variadic: true }],
  options: [
    { name: 'world', value: '<scenario.json>', help: 'the world: device profiles and what happens to them over time (docs/world.md)' },
    { name: 'trace', value: '<file>', help: 'write the trace, one JSON object per line: LEDs, buttons, prints, preview data, inputs, errors, app lifecycle' },
    { name: 'verbose', help: 'also show each change of the LEDs on stderr' },
    { name: 'energy', help: "after the run, what each device's app costs: its average current, how long the profile's battery lasts at that rate, and each part's share, biggest first, naming what in the app draws it (docs/world.md, \"Energy\"); the simulator's model (--target sim)" },
    { name: 'json', help: 'with --energy: print the report as one JSON object on stdout instead of the app\'s output (which --trace keeps)' },
    { name: 'heap', value: '<size>', help: "JS heap of every device, bytes or KB ('64K'); default: the device profile's (96K)" },
    { name: 'flash', value: '<dir>', help: "keep each device's flash (storage records, queued events) in <dir>/<device>.flash between runs; default: erased at every run" },
    { name: 'memory-limit', value: '<MB>', help: 'refuse, before it starts, a world that may need more memory than this (default: what the machine has available); the simulator (--target sim)' },
    { name: 'cloud', value: 'embedded|loopback|none|mqtt://host:port|mqtts://host:port', help: "the cloud devices sync with. Default: for apps that use cloud or sync, the cloud service started for the run (embedded: its broker on 127.0.0.1, its SQLite store; what it stores and delivers is added to the trace and summed up on stderr; the firmware on bsim reaches it over TLS, as a device does), otherwise loopback. loopback: the simulator's deterministic model cloud, which scenario faults can reach; none: no network (every sync fails); mqtt://host:port: a running `beacon cloud` (plain MQTT, loopback only); mqtts://host:port: one on TLS (--target bsim, with --cloud-ca)" },
    { name: 'cloud-secret', value: '<password>', help: 'with --cloud mqtt[s]://: the devices\' password, from `beacon cloud device add <public id>`' },
    { name: 'cloud-ca', value: '<ca.pem>', help: 'with --cloud mqtts://: the CA certificate that signs the broker\'s, which the firmware verifies it with' },
    { name: 'cloud-db', value: '<file|postgres://...>', help: 'the embedded cloud\'s store, kept after the run (a second run sees the first one\'s events; `beacon cloud --db <file>` serves it); default: a temporary SQLite file' },
    { name: 'cloud-port', value: '<port>', help: 'the embedded cloud\'s MQTT port on 127.0.0.1 (default: a free one)' },
    { name: 'cloud-code', value: '<handlers.js>', help: "after the run, call this cloud-code handler (module.exports = async function (event) {...}) for each event the run's cloud stored, one at a time in simulated-time order, with Date.now() at the event's device time: what it prints goes to stdout and to the trace (cloud-code records), the same at every run (docs/cloud.md, \"Cloud code\"); without --utc or a scenario's utc the clock starts at 2026-01-01T00:00:00Z" },
    { name: 'for', value: '<interval>', help: 'simulated time to run, e.g. 30s, 10m, "2 hours", 1w (default: until the app stops or nothing more can happen)' },
    apiOption,
    { ...engineOption, help: 'engine to run on (default duktape; for a package, the engine it was built for)' },
    { name: 'realtime', help: 'let simulated time pass at wall-clock speed' },
    { name: 'utc', value: '<time>', help: 'UTC time the simulated clock starts at: ISO 8601 (2024-05-01T12:00:00Z) or milliseconds since 1970' },
    { name: 'trust', value: '<key.pub>', repeatable: true, help: "run as a device that trusts this signing key (a P-256 public key: the .pub of 'beacon keygen', or its 130 hex digits): only packages signed with a trusted key run" },
    { name: 'target', value: '<sim|qemu|bsim|zephyr-qemu>', help: "sim (default): the host simulator; qemu: the bare-metal image on an emulated Cortex-M4 (qemu-system-arm, one device), which adds its figures on stderr; bsim: the firmware built by Zephyr on nrf52_bsim, one firmware per device, their BLE radios on BabbleSim's air (several devices run until --for, 60 s unless given); zephyr-qemu: that firmware on mps2/an521 under QEMU (one device)" },
    { name: 'air', value: '<model|radio>', help: "with --target bsim: radio puts the whole scenario on BabbleSim's air, every device a firmware (an lte-beacon as its two chips) and every scripted beacon a tag firmware advertising its packet; model (the default for one device) keeps the scenario's beacons in the firmware's model of the air" },
    { name: 'air-dump', value: '<dir>', help: "with --target bsim: keep BabbleSim's record of the air in <dir>: the physical layer's dumps of every packet each device sent and every time it listened (d_2G4_<n>.Tx.csv, .Rx.csv, ...; air-devices.json names the device numbers) and air.pcap, every device's packets for Wireshark (LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR, stamped with simulated time); a summary per device goes to stderr. With one device on the model's air (no --air radio) the app's packets stay in the model: the radio carries only the upload service's advertising" },
    retiredBoardOption,
  ],
  details:
    'Intervals are a number, an optional space and a unit: ms; s, sec, secs; m, min, mins; h, hour, hours; d, day, days; w, week, weeks. A bare number is milliseconds.\n' +
    'Error locations in the simulator\'s messages are shown in the app\'s source, using the source map beside the package.\n' +
    'With several devices, each printed line starts with [device]. A scenario with an error is refused before anything runs, with the JSON path and the reason.\n' +
    'Exit status: 0 when the run ends normally, 1 when a package or the scenario is refused or an app\'s top level threw.',
};

export const traceSpec: CommandSpec = {
  name: 'trace',
  brief: "show a device log's error locations in the app's source",
  summary: "Copy a log (stdin, or --log) to stdout with every error location in the package's minified script (app.min.js:<line>) replaced by the place in the app's source it came from, using the package's source map.",
  positionals: [{ name: 'package', help: 'the .bapp the log is from (its map is <package>.map)' }],
  options: [
    { name: 'log', value: '<file>', help: 'read the log from this file instead of stdin' },
    { name: 'map', value: '<file>', help: 'the source map, if it is not beside the package' },
  ],
};

export const keygenSpec: CommandSpec = {
  name: 'keygen',
  brief: 'make an ECDSA P-256 key pair for signing packages',
  summary: 'Write a new ECDSA P-256 key pair for `beacon build --sign`: <name>.pem (the private key, PKCS#8 PEM; keep it secret) and <name>.pub (the public key devices trust, PEM, for --trust), and print the public key as the firmware\'s CONFIG_BEACON_TRUSTED_KEYS takes it (130 hex digits). Existing files are never overwritten.',
  positionals: [{ name: 'name', help: 'path of the key files without extension' }],
  options: [],
};

export const codegenSpec: CommandSpec = {
  name: 'codegen',
  brief: 'generate C glue, typings and API docs from the declarations',
  summary: 'Generate the C glue, the per-version typings and the API docs from the declarations in bindings-ts/api.',
  positionals: [],
  options: [
    { name: 'check', help: 'write nothing; exit 1 if a generated file is out of date' },
    { name: 'versions', value: '<v1,v2>', help: 'with --out: C glue for only these API versions (a firmware that runs only their apps)' },
    { name: 'out', value: '<dir>', help: 'with --versions: directory to write api_types.{h,c} and api_glue.{h,c} to' },
  ],
};

export const cloudSpec: CommandSpec = {
  name: 'cloud',
  brief: 'run the cloud service devices sync with (MQTT broker, store, HTTP API, web page)',
  summary:
    'Run the cloud: an MQTT broker devices sync with, a store for their events, variables and messages, an HTTP API and a web page. ' +
    'It prints the MQTT and HTTP addresses and the API token, and runs until interrupted. ' +
    "'beacon cloud device add <public id>' issues a device's credentials (shown once); 'device revoke <id>' revokes them; 'device list' lists devices; " +
    "'webhook add <url>' registers a receiver that every stored event is POSTed to, signed (its secret is shown once); 'webhook add --code <handlers.js>' a cloud-code rule instead; 'webhook list', 'webhook remove <id>', 'webhook dead <id>' (the events given up on), 'webhook replay <id>' (send them again) and 'webhook logs <id>' (what cloud code printed); " +
    "--code <handlers.js> runs that cloud-code handler for every stored event, in a sandbox (docs/cloud.md, \"Cloud code\"); " +
    "'deploy APP.bapp --devices ID,...' (or --all) assigns an app to devices, which fetch and install it at their next syncs; 'deploy status [id]' shows each device's state (pending, downloading, installed, refused, rolled back); " +
    "'mosquitto-config <dir>' writes the password, ACL and configuration files an external Mosquitto needs; " +
    "'prune --older-than 90d' removes events older than that (by device time; PostgreSQL drops whole days); " +
    "'load --broker <url> --db <store> --devices <n>' runs a fleet of load devices against a running cloud and reports what it sustained (docs/cloud.md, \"Load testing\").",
  positionals: [
    { name: 'command', help: 'nothing (run the cloud), device, webhook, deploy, mosquitto-config, prune, or load', optional: true },
    { name: 'action', help: 'device: add, revoke or list; webhook: add, list, remove, dead, replay or logs; deploy: the package (APP.bapp) or status; mosquitto-config: the directory', optional: true },
    { name: 'id', help: 'device add/revoke: the public id (hex); webhook add: the receiver\'s URL; webhook remove/dead/replay/logs: the webhook\'s id; deploy status: a deployment\'s id', optional: true },
  ],
  options: [
    { name: 'port', value: '<n>', help: 'MQTT port (default 1883; 0 picks a free one); for mosquitto-config, the listener port' },
    { name: 'http-port', value: '<n>', help: 'HTTP port of the API and the page (default 8080; 0 picks a free one)' },
    { name: 'host', value: '<address>', help: 'address to listen on (default 127.0.0.1); anything but loopback needs TLS' },
    { name: 'db', value: '<file|postgres://...>', help: "the store: a SQLite file (default beacon-cloud.db) or a PostgreSQL URL; load: the running cloud's (required)" },
    { name: 'broker', value: '<mqtt://...>', help: "use this external Mosquitto instead of the embedded broker (see 'mosquitto-config'); load: the broker the cloud serves devices on (required)" },
    { name: 'service-port', value: '<n>', help: "mosquitto-config: the port of the cloud's own listener, where workers connect with --broker (default: --port + 1)" },
    { name: 'service-host', value: '<address>', help: 'mosquitto-config: its address (default 127.0.0.1; anything else gets the TLS certificate too)' },
    { name: 'share-group', value: '<name>', help: "with --broker: the MQTT shared-subscription group to join (default beacon-cloud); every process started with the same --broker, --db and group shares the devices' frames (docs/cloud.md, Scaling out)" },
    { name: 'no-share', help: 'with --broker: subscribe alone, for a broker without shared subscriptions (run only one such process)' },
    { name: 'mosquitto-dir', value: '<dir>', help: "with --broker: rewrite the broker's password and ACL files here when devices are added or revoked (as mosquitto-config wrote them)" },
    { name: 'mosquitto-pid', value: '<pid|file>', help: 'with --mosquitto-dir: the broker\'s process id or pid file; it gets SIGHUP after each change, which ends a revoked device\'s sessions at once' },
    { name: 'tls-cert', value: '<file>', help: 'PEM certificate for TLS on MQTT and HTTP' },
    { name: 'tls-key', value: '<file>', help: 'PEM private key for TLS on MQTT and HTTP' },
    { name: 'token', value: '<token>', help: 'HTTP API token (default: $BEACON_CLOUD_TOKEN, else the one kept in the store)' },
    { name: 'older-than', value: '<duration>', help: 'prune: remove events older than this, e.g. 90d, 12h, 30m, 2w' },
    { name: 'type', value: '<type,...>', help: 'webhook add: only events of these types (default: all)' },
    { name: 'device', value: '<id,...>', help: 'webhook add: only events of these devices (default: all)' },
    { name: 'retry-for', value: '<duration>', help: 'webhook add: how long an event is retried before it goes to the dead letters (default 24h)' },
    { name: 'allow-http', help: 'webhook add: allow a plain http:// receiver that is not on loopback (the events cross the network unencrypted)' },
    { name: 'webhook-timeout', value: '<interval>', help: 'deadline of one webhook POST, connection and answer (default 10s)' },
    { name: 'webhook-retry-base', value: '<interval>', help: 'first wait before a failed webhook POST is tried again; doubles each time, with full jitter, up to 10 min (default 1s)' },
    { name: 'webhook-concurrency', value: '<n>', help: 'webhook POSTs (and cloud-code calls) in flight per webhook in this process (default 8)' },
    { name: 'code', value: '<handlers.js>', help: 'run this cloud-code handler (module.exports = async function (event) {...}) for every stored event and variable update, in a sandboxed process of its own, retried like a webhook; kept in the store, so every worker runs it; webhook add --code: a rule with --type/--device filters' },
    { name: 'code-timeout', value: '<interval>', help: 'deadline of one cloud-code call; past it the handler\'s process is ended and started again (default 30s)' },
    { name: 'code-memory', value: '<MB>', help: 'heap of a cloud-code handler\'s process; over it (or over twice it plus 64 MB in all) the process is ended and started again (default 128)' },
    { name: 'all', help: 'deploy: to every device with credentials' },
    { name: 'stage', value: '<p%,...>', help: 'deploy: roll out in stages, each a share of the devices (e.g. 10%,50%,100%); a refusal or rollback stops it and gives the app before back' },
    { name: 'min-healthy', value: '<duration>', help: 'deploy --stage: how long every device of a stage runs the new app before the next stage (e.g. 30m; default 0)' },
    { name: 'json', help: 'device add/list, webhook add/list/dead/replay/logs, deploy, prune, load: print JSON' },
    ...cloudLoadOptions,
  ],
  details: 'Routes and examples: docs/cloud.md (webhooks: its Webhooks section). The wire protocol: docs/cloud-protocol.md.',
};

export const uploadSpec: CommandSpec = {
  name: 'upload',
  brief: 'upload a micro-app to a device over SMP (MCUmgr) and switch to it',
  summary: 'Upload a micro-app to a device and ask it to switch to it. A .ts or .js source is built first. The package goes to the device\'s staging area with the MCUmgr file upload (resumable: an upload cut off goes on where the device stopped, also from a new run of this command); the device then checks it (CRC, signature, engine, API version) and runs it, or refuses it and keeps the app it has.',
  positionals: [{ name: 'app', help: 'a .ts or .js source, or a .bapp package' }],
  options: [
    { name: 'device', value: '<address>', help: 'udp:HOST[:PORT] (port 1337 by default), serial:/dev/tty..., ble:NAME, or bsim[:FLASH]: the firmware on nrf52_bsim over BabbleSim\'s BLE, its flash kept in FLASH (default ./beacon-bsim.flash)' },
    apiOption,
    engineOption,
    { name: 'sign', value: '<key.pem>', help: 'sign the package built from a source with this ECDSA P-256 private key' },
    { name: 'timeout', value: '<ms>', help: 'wait this long for each answer before sending again (default 2000)' },
    { name: 'retries', value: '<n>', help: 'send a request again this many times before giving up (default 3)' },
    { name: 'for', value: '<interval>', help: 'bsim: how long the device runs after the upload (default 10s); what it printed follows the verdict' },
  ],
  details:
    'The device\'s verdict is printed on stdout; progress goes to stderr.\n' +
    'BLE needs the optional package @abandonware/noble (npm install @abandonware/noble) and a Bluetooth adapter.\n' +
    'bsim needs a Zephyr 3.7 workspace with JerryScript and BabbleSim built (ZEPHYR_BASE, or ~/zephyrproject: docs/firmware.md): the firmware and the rig\'s phone, a second firmware that uploads as a phone does, are built on first use (docs/upload.md).\n' +
    'Exit status: 0 when the device switched to the package; 1 when it refused it, did not answer or could not be reached.',
};

export const simSpec: CommandSpec = {
  name: 'sim',
  brief: 'a long-lived simulated device that takes apps over SMP (--listen)',
  summary:
    'Start a simulated device that serves SMP (MCUmgr) as a device does: over UDP on 127.0.0.1 and over a pseudo-terminal with the SMP serial framing, so that `beacon upload` and other SMP tools install apps on it. ' +
    'It prints "pty: <path>", "udp: 127.0.0.1:<port>" and "ready", then the app\'s print() lines; it runs until interrupted. ' +
    'An upload is verified (CRC, engine, API version, signature against --trust keys) before the running app stops; a refused or interrupted one leaves the app and its storage as they were.',
  positionals: [{ name: 'app', help: 'a .ts or .js source or a .bapp package to start with (default: the app kept in --flash, else none)', optional: true }],
  options: [
    { name: 'listen', help: 'serve SMP (required: the only mode of this command)' },
    { name: 'port', value: '<n>', help: 'UDP port on 127.0.0.1 (default 1337; 0 picks a free one, printed when ready)' },
    { name: 'no-udp', help: 'no UDP transport' },
    { name: 'no-pty', help: 'no pseudo-terminal' },
    { name: 'baud', value: '<n>', help: 'simulate a serial line of this rate on the pseudo-terminal (e.g. 115200)' },
    { name: 'flash', value: '<dir>', help: 'keep the device\'s flash in <dir> between runs: storage (d0.flash) and the app store with the installed app (d0.apps.flash)' },
    { name: 'trust', value: '<key.pub>', repeatable: true, help: "trust this signing key (a P-256 public key: the .pub of 'beacon keygen'): only packages signed with a trusted key are installed" },
    { name: 'trace', value: '<file>', help: 'write the trace, one JSON object per line, flushed as it happens' },
    { name: 'heap', value: '<size>', help: "JS heap, bytes or KB ('64K')" },
    { name: 'utc', value: '<time>', help: 'UTC time the device clock starts at (ISO 8601 or ms since 1970; default now)' },
    { name: 'control', help: 'read commands on stdin: input [+MS] <input...>, advance MS, sync, quit; end at EOF' },
    { name: 'virtual', help: 'with --control: device time stands still until advanced' },
    { name: 'target', value: '<sim|qemu>', help: 'sim (default): the host simulator; qemu: the firmware image on an emulated core (qemu-system-arm), serving SMP on its UART behind a pseudo-terminal only (no UDP, --flash, --trust, --heap or --control)' },
    retiredBoardOption,
    apiOption,
    { ...engineOption, help: 'engine of the device (default duktape; for a package, the engine it was built for)' },
  ],
  details:
    'Device time runs at wall-clock speed. The control channel\'s inputs are the world script\'s (docs/world.md): "input button main down", "input +500 button main up", "input temperature 31".\n' +
    'Exit status: 0 after an interrupt or quit; 1 when the flash could not be saved; 2 for bad usage.',
};

export const testSpec: CommandSpec = {
  name: 'test',
  brief: 'run micro-app tests (beacon-tools/testing) on simulated devices or a rig',
  summary:
    'Run test files written with beacon-tools/testing on node\'s test runner (docs/testing.md). TypeScript tests are compiled first; JavaScript tests run as they are. ' +
    'Without --device the tests\' worlds run on the simulator; with it, on the device at that address: apps are installed over SMP and the console read over serial, and tests needing what the rig cannot do (button presses, motion, power, the trace) are reported skipped. ' +
    'With --device bsim or zephyr-qemu, each world runs on the firmware built by Zephyr for nrf52_bsim or mps2/an521, whose test configuration has the world\'s models of the device\'s parts: the scenario, the console and the trace as on the simulator. On bsim a world of several devices runs as several firmwares whose BLE radios share BabbleSim\'s air; on zephyr-qemu it is skipped. With --air radio, every world on bsim runs on BabbleSim\'s air alone, a device whose profile is lte-beacon as its two chips (the firmware with Bluetooth over H:4 and the HCI UART controller).',
  positionals: [{ name: 'files', help: 'test files (*.test.ts, *.test.js) or directories holding them (default: the current directory)', optional: true, variadic: true }],
  options: [
    { name: 'device', value: '<address>', help: 'run on this device: udp:HOST[:PORT] or serial:/dev/tty..., or on the firmware on a test board: bsim or zephyr-qemu' },
    { name: 'air', value: '<model|radio>', help: "with --device bsim: radio runs every world on BabbleSim's air alone, each device a firmware (an lte-beacon as its two chips); model (the default) runs a world of one device with the firmware's model of the air. A world's own `air` option wins" },
    { name: 'air-dump', value: '<dir>', help: "with --device bsim: keep BabbleSim's record of the air of each world run in <dir>/<test name>/ (the physical layer's dumps and air.pcap, as beacon run --air-dump; a test that runs several worlds gets <test name>.2 and on); for the library, $BEACON_TEST_AIR_DUMP" },
    { ...engineOption, help: 'engine the apps are built for (default duktape; a real device runs jerryscript)' },
    { ...apiOption, help: 'API version apps from source are built for (default: the newest)' },
  ],
  details: 'Exit status: 0 when every test passed or was skipped, 1 when one failed, 2 for bad usage.',
};

export const studioSpec: CommandSpec = {
  name: 'studio',
  brief: 'write, build and run micro-apps in a local web page',
  summary: 'Serve the studio on 127.0.0.1: an editor with the typings of the API version, Build (the compiler of `beacon build`, with its size report), and the simulator in WebAssembly with the device drawn: LED ring, buttons, power and temperature sliders, motion, preview charts and the trace. The page works offline; stop the server with Ctrl-C.',
  positionals: [{ name: 'app', help: 'a .ts or .js source to open', optional: true }],
  options: [
    { name: 'port', value: '<n>', help: 'port on 127.0.0.1 (default 8070; 0 picks a free one)' },
    { name: 'world', value: '<scenario.json>', help: 'scenario to open (docs/world.md)' },
    apiOption,
  ],
  details: 'The WebAssembly simulator is built with emscripten (scripts/build-wasm.sh) the first time, and again when the C sources change.',
};

export const COMMANDS: readonly CommandSpec[] = [buildSpec, runSpec, studioSpec, simSpec, testSpec, uploadSpec, traceSpec, keygenSpec, codegenSpec, cloudSpec];

export function mainHelp(): string {
  const lines = [
    'usage: beacon <command> [options]',
    '',
    'Build beacon micro-apps, run them on the simulator and upload them to devices.',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(10)}${c.brief}`),
    '',
    'options:',
    '  -h, --help    show this help',
    '  --version     show the version of the tools',
    '',
    "Run 'beacon <command> --help' for the options of a command.",
  ];
  return lines.join('\n') + '\n';
}

// The commands and their options; parsing and help are both driven from here.
import { API_VERSIONS, DEFAULT_API_VERSION } from '../codegen/versions';
import { CommandSpec, OptionSpec } from './args';

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

export const buildSpec: CommandSpec = {
  name: 'build',
  brief: 'compile a micro-app (.ts/.js) into an app package (.bapp)',
  summary: 'Compile a micro-app into an app package (.bapp): type-check it against the API version, lower it to ES5, bundle its imports, minify it and compile it to engine bytecode. The source map goes beside the package (<package>.map); a size report goes to stderr.',
  positionals: [{ name: 'source', help: 'the app: a .ts or .js file' }],
  options: [
    { name: 'output', short: 'o', value: '<file>', help: 'package to write (default: the source path with .bapp)' },
    apiOption,
    engineOption,
    { name: 'sign', value: '<key.pem>', help: "sign the package with this Ed25519 private key (from 'beacon keygen')" },
    { name: 'json', help: 'print the build report as one JSON object on stdout' },
    { name: 'minify', value: '<lines|dense|none>', help: 'lines (default): a statement per line, for error locations on engines that report lines; dense: the smallest Duktape bytecode; none' },
    { name: 'keep', help: 'keep the ES5 and the minified script next to the package (<name>.es5.js, <name>.min.js)' },
  ],
  details:
    'Device errors name the minified script (app.min.js:<line>); `beacon run` shows them at their place in the source, and `beacon trace <package>` does the same for a device log.',
};

export const runSpec: CommandSpec = {
  name: 'run',
  brief: 'run a micro-app or an app package on the simulator',
  summary: 'Run micro-apps on simulated devices. A .ts or .js source is built first (into a temporary package); print() output appears as it happens. Each app runs on its own device of the default profile, or on the devices of a world scenario (--world).',
  positionals: [{ name: 'app', help: 'a .ts or .js source, or a .bapp package; one per device (one for all devices of a scenario), or none when the scenario names them', optional: true, variadic: true }],
  options: [
    { name: 'world', value: '<scenario.json>', help: 'the world: device profiles and what happens to them over time (docs/world.md)' },
    { name: 'trace', value: '<file>', help: 'write the trace, one JSON object per line: LEDs, buttons, prints, preview data, inputs, errors, app lifecycle' },
    { name: 'verbose', help: 'also show each change of the LEDs on stderr' },
    { name: 'heap', value: '<size>', help: "JS heap of every device, bytes or KB ('64K'); default: the device profile's (96K)" },
    { name: 'for', value: '<interval>', help: 'simulated time to run, e.g. 30s, 10m, "2 hours", 1w (default: until the app stops or nothing more can happen)' },
    apiOption,
    { ...engineOption, help: 'engine to run on (default duktape; for a package, the engine it was built for)' },
    { name: 'realtime', help: 'let simulated time pass at wall-clock speed' },
    { name: 'utc', value: '<time>', help: 'UTC time the simulated clock starts at: ISO 8601 (2024-05-01T12:00:00Z) or milliseconds since 1970' },
    { name: 'trust', value: '<key.pub>', repeatable: true, help: 'run as a device that trusts this signing key: only packages signed with a trusted key run' },
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
  brief: 'make an Ed25519 key pair for signing packages',
  summary: 'Write a new Ed25519 key pair for `beacon build --sign`: <name>.pem (the private key; keep it secret) and <name>.pub (the public key devices trust). Existing files are never overwritten.',
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

export const COMMANDS: readonly CommandSpec[] = [buildSpec, runSpec, studioSpec, traceSpec, keygenSpec, codegenSpec];

export function mainHelp(): string {
  const lines = [
    'usage: beacon <command> [options]',
    '',
    'Build beacon micro-apps and run them on the simulator.',
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

// The build cache: a package built once is not built again while nothing it was built from has
// changed. Rebuilding an unchanged app (beacon run app.ts, beacon test, the studio, a second
// beacon build) then costs a few file reads and hashes instead of loading TypeScript, rollup and
// terser and running them (about a second).
//
// An entry is found by a key and then checked against what it was built from, as ccache's
// manifests are:
//
//   key      SHA-256 of: the cache format; the compiler's fingerprint (its own code, the lib and
//            polyfill files, the typings index, the installed versions of TypeScript, rollup,
//            terser and every other package, node's version); the entry file's name and
//            content; the API version, engine and minify mode; the typings file and its content.
//   inputs   every file the build read (the app's modules and the declaration files the type
//            checker used, the nearest package.json of each), with the SHA-256 of its content,
//            and the names a module resolution could pick in each of their directories (source
//            and declaration files, JSON files, subdirectories): a new util.ts beside a util.js
//            resolves differently even though no file read before has changed.
//   packTool SHA-256 of the beacon-pack binary that compiled the bytecode (the engine, its
//            configuration and the package format are all in it).
//
// A hit needs every input to hash as recorded, the same resolution candidates and the same
// beacon-pack; anything else rebuilds. App files are recorded relative to the entry's directory,
// so a copy of a project elsewhere (or a source written to a temporary directory by the studio or
// a test) finds the same entry; the compiler's own files (tslib, the typings) are absolute.
//
// An entry is one JSON file holding the unsigned package, the source map, both scripts and the
// report, with a SHA-256 over all of it: a damaged entry (truncated, a flipped bit) fails the
// check and is rebuilt and replaced. Entries are written to a temporary name and renamed, so
// concurrent builds never read half an entry. Signing happens after the cache, with the key given
// to each build. The cache keeps the most recently used entries (MAX_ENTRIES).
//
// In the tools' cache directory (toolsCache.ts), under builds/. BEACON_BUILD_CACHE=off (or
// `beacon build --no-cache`) builds without it. A cache directory that cannot be written only
// means no cache.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';
import { cacheRoot, cachingEnabled, sha256 } from '../toolsCache';
import type { Diagnostic } from './diagnostics';
import type { PackReport } from './pack';
import type { SourceMapV3 } from './sourceMap';

const CACHE_FORMAT = 'beacon-build-cache 1';
export const MAX_ENTRIES = 400;

function fileDigest(file: string): string | null {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
}

function filesUnder(dir: string, test: (name: string) => boolean): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name), test) : test(e.name) ? [path.join(dir, e.name)] : []))
    .sort();
}

/** Packages whose versions decide what the compiler emits. */
const COMPILER_PACKAGES = [
  'typescript',
  'rollup',
  '@rollup/plugin-typescript',
  '@rollup/plugin-node-resolve',
  '@rollup/plugin-commonjs',
  'terser',
  'tslib',
];

let fingerprint: string | undefined;

/**
 * What identifies this compiler: a change to any of it must not find packages it built before.
 * Read once per process (a few hundred kB to hash).
 */
export function compilerFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const root = toolsRoot();
  // The compiled compiler (dist/src/compiler, dist/src/codegen) or, when run from sources by
  // ts-node and the like, the sources beside this file.
  const here = __dirname;
  const files = [
    ...filesUnder(here, (n) => /\.(js|ts)$/.test(n) && !n.endsWith('.d.ts')),
    ...filesUnder(path.join(here, '..', 'codegen'), (n) => /\.(js|ts)$/.test(n) && !n.endsWith('.d.ts')),
    ...filesUnder(path.join(root, 'lib'), () => true),
    path.join(root, 'types', 'api-index.json'),
    path.join(root, 'package.json'),
  ];
  const h = crypto.createHash('sha256');
  h.update(`${CACHE_FORMAT}\0node ${process.version}\0`);
  for (const f of files) h.update(`${path.relative(root, f)}\0${fileDigest(f) ?? '-'}\0`);
  for (const name of COMPILER_PACKAGES) {
    let manifest = '-';
    try {
      manifest = fs.readFileSync(require.resolve(`${name}/package.json`, { paths: [root] }), 'utf8');
    } catch {
      // not installed where node finds it: the build will say so
    }
    h.update(`${name}\0${sha256(manifest)}\0`);
  }
  // npm's record of every installed package and version (transitive dependencies included).
  try {
    const typescriptDir = path.dirname(require.resolve('typescript/package.json', { paths: [root] }));
    h.update(`lock\0${fileDigest(path.join(typescriptDir, '..', '.package-lock.json')) ?? '-'}\0`);
  } catch {
    h.update('lock\0-\0');
  }
  fingerprint = h.digest('hex');
  return fingerprint;
}

const packToolDigests = new Map<string, string>();

/** SHA-256 of a beacon-pack binary (memoised on its size, mtime and inode). */
export function packToolDigest(tool: string): string {
  const st = fs.statSync(tool, { bigint: true });
  const memo = `${tool}\0${st.size}\0${st.mtimeNs}\0${st.ino}`;
  let d = packToolDigests.get(memo);
  if (d === undefined) {
    d = sha256(fs.readFileSync(tool));
    packToolDigests.set(memo, d);
  }
  return d;
}

/** What decides an entry's key besides the compiler. */
export interface CacheKeyParts {
  entry: string;
  apiVersion: string;
  engine: string;
  minify: string;
  typingsFile: string;
}

/** The report of a build besides its files. */
export interface BuiltReport {
  pack: PackReport;
  sourceBytes: number;
  polyfillBytes: number;
  polyfills: string[];
  /** Absolute paths, entry first. */
  modules: string[];
  usesCloud: boolean;
  warnings: Diagnostic[];
}

/** A build as the cache takes and gives it. */
export interface BuiltPackage {
  report: BuiltReport;
  /** Unsigned. */
  packageBytes: Buffer;
  /** Sources relative to the directory the package goes to. */
  map: SourceMapV3;
  es5: string;
  script: string;
}

interface Entry {
  format: string;
  key: string;
  /** [path (relative to the entry's directory unless absolute), SHA-256 or null for absent]. */
  inputs: [string, string | null][];
  /** [directory (as inputs), SHA-256 of its resolution candidates]. */
  dirs: [string, string][];
  packTool: string;
  /** With app paths relative to the entry's directory, as the map's sources. */
  report: BuiltReport;
  packageBase64: string;
  map: SourceMapV3;
  es5: string;
  script: string;
}

interface StoredEntry {
  entry: Entry;
  /** SHA-256 of JSON.stringify(entry). */
  digest: string;
}

/** Names in a directory that a module resolution could pick. */
const CANDIDATE = /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx|json|node)$/;

function dirCandidates(dir: string): string {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return '-';
  }
  const names = entries
    .filter((e) => e.isDirectory() || CANDIDATE.test(e.name))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  return sha256(names.join('\n'));
}

function nearestPackageJson(file: string): string | undefined {
  let dir = path.dirname(file);
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export class BuildCache {
  readonly dir: string;
  private readonly toolFiles: (file: string) => boolean;

  /**
   * @param dir where entries are kept
   * @param toolFiles files of the compiler itself (recorded with absolute paths)
   */
  constructor(dir: string, toolFiles: (file: string) => boolean) {
    this.dir = dir;
    this.toolFiles = toolFiles;
  }

  /** The key of an entry; reads the entry and typings files. */
  key(parts: CacheKeyParts, compiler: string = compilerFingerprint()): string {
    const h = crypto.createHash('sha256');
    h.update(`${CACHE_FORMAT}\0${compiler}\0`);
    h.update(`${path.basename(parts.entry)}\0${fileDigest(parts.entry) ?? '-'}\0`);
    h.update(`${parts.apiVersion}\0${parts.engine}\0${parts.minify}\0`);
    h.update(`${parts.typingsFile}\0${fileDigest(parts.typingsFile) ?? '-'}\0`);
    return h.digest('hex');
  }

  private file(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }

  /** How a path is recorded: app files relative to the entry's directory `base`. */
  private recorded(file: string, base: string): string {
    return this.toolFiles(file) ? file : path.relative(base, file) || '.';
  }

  /** A build with its paths moved from one base to another (see recorded). */
  private rebased(b: BuiltPackage, from: (p: string) => string, to: (p: string) => string): BuiltPackage {
    return {
      ...b,
      report: {
        ...b.report,
        modules: b.report.modules.map((m) => (m.startsWith('\0') ? m : to(from(m)))),
        warnings: b.report.warnings.map((d) => (d.file === undefined ? d : { ...d, file: to(from(d.file)) })),
      },
      map: { ...b.map, sources: b.map.sources.map((src) => to(from(src)).split(path.sep).join('/')) },
    };
  }

  /**
   * The entry for `key`, if everything it was built from is as it was then. `packTool` is asked
   * only when the files match (it may have to build the host tools).
   */
  async lookup(key: string, entry: string, outDir: string, packTool: () => Promise<string>): Promise<BuiltPackage | undefined> {
    const file = this.file(key);
    let stored: StoredEntry;
    try {
      stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredEntry;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.discard(file);
      return undefined;
    }
    const e = stored?.entry;
    if (!e || typeof stored.digest !== 'string' || sha256(JSON.stringify(e)) !== stored.digest || e.format !== CACHE_FORMAT || e.key !== key) {
      this.discard(file); // damaged or foreign: rebuilt and replaced
      return undefined;
    }
    const base = path.dirname(entry);
    for (const [p, digest] of e.inputs) {
      if (fileDigest(path.resolve(base, p)) !== digest) return undefined;
    }
    for (const [d, digest] of e.dirs) {
      if (dirCandidates(path.resolve(base, d)) !== digest) return undefined;
    }
    if (packToolDigest(await packTool()) !== e.packTool) return undefined;
    const packageBytes = Buffer.from(e.packageBase64, 'base64');
    try {
      const now = new Date();
      fs.utimesSync(file, now, now); // most recently used
    } catch {
      // read-only cache: still a hit
    }
    const recorded: BuiltPackage = { report: e.report, packageBytes, map: e.map, es5: e.es5, script: e.script };
    // Modules and warnings become absolute again, the map's sources relative to outDir.
    const abs = (p: string): string => path.resolve(base, p);
    return {
      ...this.rebased(recorded, abs, (p) => p),
      map: this.rebased(recorded, abs, (p) => path.relative(outDir, p)).map,
    };
  }

  /**
   * Record a build of `entry` into `outDir` (which its map's sources are relative to). `inputs`
   * are absolute; everything app-side is recorded relative to the entry's directory.
   */
  store(key: string, entry: string, outDir: string, inputs: readonly string[], packTool: string, built: BuiltPackage): void {
    const base = path.dirname(entry);
    const rel = (p: string): string => this.recorded(p, base);
    const build: BuiltPackage = {
      ...this.rebased(built, (p) => p, rel),
      map: this.rebased(built, (p) => path.resolve(outDir, p), rel).map,
    };
    // The app's files: their directories' resolution candidates and their packages' manifests
    // are inputs too (the compiler's own files are covered by its fingerprint).
    const appFiles = [...new Set([entry, ...inputs])].filter((f) => !this.toolFiles(f));
    const files = new Set<string>([entry, ...inputs]);
    for (const f of appFiles) {
      const pkg = nearestPackageJson(f);
      if (pkg !== undefined) files.add(pkg);
    }
    const recordedInputs: [string, string | null][] = [...files].sort().map((f) => [this.recorded(f, base), fileDigest(f)]);
    const dirs = [...new Set(appFiles.map((f) => path.dirname(f)))].sort();
    const e: Entry = {
      format: CACHE_FORMAT,
      key,
      inputs: recordedInputs,
      dirs: dirs.map((d) => [path.relative(base, d) || '.', dirCandidates(d)]),
      packTool: packToolDigest(packTool),
      report: build.report,
      packageBase64: build.packageBytes.toString('base64'),
      map: build.map,
      es5: build.es5,
      script: build.script,
    };
    const text = JSON.stringify({ entry: e, digest: sha256(JSON.stringify(e)) } satisfies StoredEntry);
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      const tmp = path.join(this.dir, `.${key}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
      fs.writeFileSync(tmp, text);
      fs.renameSync(tmp, this.file(key));
      this.prune();
    } catch {
      // a cache that cannot be written is no cache; the build itself succeeded
    }
  }

  private discard(file: string): void {
    try {
      fs.rmSync(file, { force: true });
    } catch {
      // read-only: ignored all the same
    }
  }

  /** Keep the MAX_ENTRIES most recently used entries. */
  private prune(): void {
    const names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    if (names.length <= MAX_ENTRIES) return;
    const byAge = names
      .map((n) => {
        try {
          return { n, t: fs.statSync(path.join(this.dir, n)).mtimeMs };
        } catch {
          return { n, t: 0 };
        }
      })
      .sort((a, b) => a.t - b.t);
    for (const { n } of byAge.slice(0, names.length - MAX_ENTRIES)) this.discard(path.join(this.dir, n));
  }
}

/** The build cache in cacheRoot(), or undefined when it is turned off. */
export function openBuildCache(toolFiles: (file: string) => boolean): BuildCache | undefined {
  if (!cachingEnabled()) return undefined;
  return new BuildCache(path.join(cacheRoot(), 'builds'), toolFiles);
}

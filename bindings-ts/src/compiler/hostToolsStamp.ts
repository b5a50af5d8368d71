// A cheap answer to "are the host tools current?", so that a command that finds nothing changed
// does not pay for `cmake --build` (about 0.2 s of make walking its tree, every run).
//
// After each build of a tool, a stamp records every file make looks at to decide that the tool
// is current, with its size, modification time (ns) and inode:
//
//   - the tool itself and the build system's own files (Makefile, Makefile2, CMakeCache.txt);
//   - what a reconfigure depends on (CMAKE_MAKEFILE_DEPENDS of CMakeFiles/Makefile.cmake: the
//     CMakeLists, included .cmake files, configure_file inputs, CMake's modules);
//   - the directories of the CONFIGURE_DEPENDS globs (CMakeFiles/VerifyGlobs.cmake): a source
//     file added or removed there changes the directory's modification time;
//   - for the tool's target and every target it depends on (CMakeFiles/Makefile2): the
//     prerequisites of its build.make (sources, flags, link libraries such as libmbedcrypto.so) and
//     of its dependency files (every header, system headers included: compiler_depend.make and
//     the compiler's *.o.d files).
//
// The check stats those files and compares. Any difference, a stamp that cannot be read, or a
// build directory this does not understand (another CMake generator) means "not known to be
// current", and the caller runs cmake as before, which writes a new stamp. So the stamp can only
// skip a build make would also have skipped (make compares modification times too); it never
// makes a stale tool look current. A file changed while make was building is not stamped at all
// (its new content may have missed the build), so the next check goes to cmake again.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

const STAMP_FORMAT = 1;

interface Stamp {
  format: number;
  target: string;
  /** [path, signature] of every input; the signature is '-' for a file that did not exist. */
  inputs: [string, string][];
}

function stampFile(buildDir: string, target: string): string {
  return path.join(buildDir, '.beacon-fresh', `${target}.json`);
}

/** Size, modification time in ns and inode: what changes when a file is written or replaced. */
function signature(file: string): string {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ino}`;
  } catch {
    return '-';
  }
}

/** Whether the stamp of `target` says nothing it was built from has changed since. */
export function stampSaysCurrent(buildDir: string, target: string): boolean {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile(buildDir, target), 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.format !== STAMP_FORMAT || stamp.target !== target || !Array.isArray(stamp.inputs) || stamp.inputs.length === 0) {
    return false;
  }
  for (const entry of stamp.inputs) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || signature(entry[0]) !== entry[1]) return false;
  }
  return true;
}

/** Forget the stamp (before a build: a build that fails must not leave the old one behind). */
export function removeStamp(buildDir: string, target: string): void {
  fs.rmSync(stampFile(buildDir, target), { force: true });
}

/** The prerequisites of every rule in a makefile or a compiler's dependency file. */
export function makePrerequisites(text: string): string[] {
  const out: string[] = [];
  // Join continuation lines; keep escaped spaces inside names.
  const joined = text.replace(/\\\r?\n/g, ' ');
  for (const line of joined.split('\n')) {
    if (/^\s*#/.test(line) || /^\t/.test(line)) continue;
    // "target: prerequisites" (not a variable assignment such as "X := y").
    const m = /^((?:[^:\s\\]|\\.)(?:[^:\\]|\\.)*?):(?![=:])(.*)$/.exec(line);
    if (!m) continue;
    const names = m[2].trim().match(/(?:[^\s\\]|\\.)+/g) ?? [];
    for (const name of names) {
      const file = name.replace(/\\(.)/g, '$1').replace(/\$\$/g, '$');
      if (file.includes('%') || file.includes('$(')) continue;
      out.push(file);
    }
  }
  return out;
}

/** The quoted paths of a `set(NAME "a" "b" ...)` in a CMake-generated file. */
function cmakeList(text: string, name: string): string[] {
  const m = new RegExp(`set\\(${name}\\s+([^)]*)\\)`).exec(text);
  return m ? [...m[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]) : [];
}

function walkDirs(dir: string, out: string[]): void {
  out.push(dir);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) if (e.isDirectory()) walkDirs(path.join(dir, e.name), out);
}

/** The directories of the CONFIGURE_DEPENDS globs (recursive globs: the whole tree). */
function globDirectories(verifyGlobs: string): string[] {
  const dirs: string[] = [];
  for (const m of verifyGlobs.matchAll(/file\((GLOB|GLOB_RECURSE) NEW_GLOB[^"]*"([^"]+)"\)/g)) {
    const pattern = m[2];
    const wild = pattern.search(/[*?[]/);
    const base = wild < 0 ? path.dirname(pattern) : path.dirname(pattern.slice(0, wild) + 'x');
    if (m[1] === 'GLOB_RECURSE') walkDirs(base, dirs);
    else dirs.push(base);
  }
  return dirs;
}

/** The target directories (CMakeFiles/<t>.dir) `target` needs, itself first, from Makefile2. */
function targetClosure(makefile2: string, target: string): string[] {
  const deps = new Map<string, string[]>();
  for (const m of makefile2.matchAll(/^(CMakeFiles\/[^\s:]+\.dir)\/all: (CMakeFiles\/[^\s]+\.dir)\/all$/gm)) {
    const list = deps.get(m[1]) ?? [];
    list.push(m[2]);
    deps.set(m[1], list);
  }
  const first = `CMakeFiles/${target}.dir`;
  const seen = new Set<string>([first]);
  const queue = [first];
  while (queue.length > 0) {
    for (const d of deps.get(queue.shift()!) ?? []) {
      if (!seen.has(d)) {
        seen.add(d);
        queue.push(d);
      }
    }
  }
  return [...seen];
}

function filesNamed(dir: string, test: (name: string) => boolean, out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) filesNamed(p, test, out);
    else if (test(e.name)) out.push(p);
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every file whose change would make make rebuild `target` in `buildDir`, or undefined when the
 * directory is not a Makefile build this understands.
 */
export function stampInputs(buildDir: string, target: string): { files: string[]; dirs: string[] } | undefined {
  const makefile2 = readText(path.join(buildDir, 'CMakeFiles', 'Makefile2'));
  const makefileCmake = readText(path.join(buildDir, 'CMakeFiles', 'Makefile.cmake'));
  if (makefile2 === undefined || makefileCmake === undefined) return undefined;
  const closure = targetClosure(makefile2, target);
  if (!fs.existsSync(path.join(buildDir, closure[0], 'build.make'))) return undefined;

  const files = [
    path.join(buildDir, target),
    path.join(buildDir, 'Makefile'),
    path.join(buildDir, 'CMakeCache.txt'),
    path.join(buildDir, 'CMakeFiles', 'Makefile2'),
    path.join(buildDir, 'CMakeFiles', 'Makefile.cmake'),
    path.join(buildDir, 'CMakeFiles', 'VerifyGlobs.cmake'),
    path.join(buildDir, 'CMakeFiles', 'cmake.verify_globs'),
    ...cmakeList(makefileCmake, 'CMAKE_MAKEFILE_DEPENDS').map((f) => path.resolve(buildDir, f)),
  ];
  const verifyGlobs = readText(path.join(buildDir, 'CMakeFiles', 'VerifyGlobs.cmake'));
  const dirs = verifyGlobs === undefined ? [] : globDirectories(verifyGlobs);
  for (const dir of closure) {
    const abs = path.join(buildDir, dir);
    const depFiles = [path.join(abs, 'build.make'), path.join(abs, 'compiler_depend.make'), path.join(abs, 'depend.make')];
    filesNamed(abs, (n) => n.endsWith('.o.d') || n.endsWith('.obj.d'), depFiles);
    for (const f of depFiles) {
      const text = readText(f);
      if (text === undefined) continue;
      files.push(f);
      for (const p of makePrerequisites(text)) {
        if (p === 'cmake_force' || p.endsWith('/build') || p.endsWith('/all')) continue;
        files.push(path.resolve(buildDir, p));
      }
    }
  }
  return { files: [...new Set(files)], dirs: [...new Set(dirs)] };
}

/**
 * Stamp `target` as built. `startedNs` is when the build began (nowNs()): an input outside the
 * build directory modified after it, or within a second before it (file systems take their
 * times from a clock that may lag by a tick), may not be in the tool, so then no stamp is
 * written.
 */
export function writeStamp(buildDir: string, target: string, startedNs: bigint): boolean {
  removeStamp(buildDir, target);
  const inputs = stampInputs(buildDir, target);
  if (!inputs) return false;
  const entries: [string, string][] = [];
  const inBuild = path.resolve(buildDir) + path.sep;
  const limit = startedNs - 1_000_000_000n;
  for (const file of [...inputs.files, ...inputs.dirs]) {
    const sig = signature(file);
    if (sig !== '-' && !file.startsWith(inBuild)) {
      const mtime = BigInt(sig.split(':')[1]);
      if (mtime >= limit) return false;
    }
    entries.push([file, sig]);
  }
  const stamp: Stamp = { format: STAMP_FORMAT, target, inputs: entries };
  const file = stampFile(buildDir, target);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, JSON.stringify(stamp));
  fs.renameSync(tmp, file);
  return true;
}

/** Now, in the nanoseconds file modification times use. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

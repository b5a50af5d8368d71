// The host tools' freshness stamp (src/compiler/hostToolsStamp.ts), on a small CMake project built
// the way the host tools are (Makefile generator, a static library, a CONFIGURE_DEPENDS glob, a
// system library): the stamp says "current" only while nothing make would look at has changed.
import * as assert from 'assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import { makePrerequisites, nowNs, stampInputs, stampSaysCurrent, writeStamp } from '../src/compiler/hostToolsStamp';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-stamp-test-'));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));

const haveCmake = (() => {
  try {
    execFileSync('cmake', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const FILES: Record<string, string> = {
  'CMakeLists.txt': `cmake_minimum_required(VERSION 3.20)
project(stamp C)
file(GLOB LIB_SOURCES CONFIGURE_DEPENDS lib/*.c)
file(GLOB_RECURSE DEEP_SOURCES CONFIGURE_DEPENDS deep/*.c)
add_library(parts STATIC \${LIB_SOURCES} \${DEEP_SOURCES})
target_include_directories(parts PUBLIC include)
add_executable(tool main.c)
target_link_libraries(tool parts m)
add_executable(other other.c)
`,
  'include/parts.h': 'int part(int x);\n',
  'lib/part.c': '#include "parts.h"\nint part(int x) { return x + 1; }\n',
  'deep/a/b/deep.c': 'int deep(void) { return 4; }\n',
  'main.c': '#include <math.h>\n#include "parts.h"\nint main(void) { return part(0) + (int)sqrt(0.0) - 1; }\n',
  'other.c': 'int main(void) { return 0; }\n',
};

let n = 0;
/** A configured and built copy of the project, its files dated a minute back (see writeStamp). */
function builtProject(): { src: string; build: string } {
  const src = path.join(root, `p${++n}`);
  for (const [name, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    fs.writeFileSync(path.join(src, name), text);
  }
  const past = new Date(Date.now() - 60_000);
  for (const name of [...Object.keys(FILES), 'lib', 'include', 'deep', 'deep/a', 'deep/a/b']) fs.utimesSync(path.join(src, name), past, past);
  const build = path.join(src, 'build');
  execFileSync('cmake', ['-S', src, '-B', build, '-DCMAKE_BUILD_TYPE=Release'], { stdio: 'ignore' });
  rebuild(build);
  return { src, build };
}

function rebuild(build: string): boolean {
  const started = nowNs();
  execFileSync('cmake', ['--build', build, '--target', 'tool'], { stdio: 'ignore' });
  return writeStamp(build, 'tool', started);
}

/** Write a file as an editor would: new content, modification time now. */
function edit(file: string, text: string): void {
  fs.writeFileSync(file, text);
}

test('makePrerequisites reads makefile rules and compiler dependency files', () => {
  const text = [
    '# comment',
    'obj/a.c.o: /src/a.c \\',
    '  /usr/include/stdio.h \\',
    '  /src/with\\ space.h',
    'tool: obj/a.c.o libparts.a /usr/lib/libm.so',
    '\t$(CMAKE_COMMAND) -E echo',
    'X := not a rule',
    '.PHONY : tool/fast',
  ].join('\n');
  assert.deepEqual(makePrerequisites(text), ['/src/a.c', '/usr/include/stdio.h', '/src/with space.h', 'obj/a.c.o', 'libparts.a', '/usr/lib/libm.so', 'tool/fast']);
});

test('after a build the stamp says current, and its inputs are what make looks at', { skip: !haveCmake && 'cmake is not installed' }, () => {
  const { src, build } = builtProject();
  assert.equal(stampSaysCurrent(build, 'tool'), true);
  const inputs = stampInputs(build, 'tool');
  assert.ok(inputs);
  for (const f of ['main.c', 'lib/part.c', 'include/parts.h', 'CMakeLists.txt']) {
    assert.ok(inputs.files.includes(path.join(src, f)), `${f} is an input`);
  }
  assert.ok(inputs.files.some((f) => f.startsWith('/usr/include/')), 'system headers are inputs');
  assert.ok(inputs.files.includes(path.join(build, 'tool')), 'the tool itself is an input');
  assert.ok(inputs.dirs.includes(path.join(src, 'lib')), 'the glob directory is an input');
  assert.ok(inputs.dirs.includes(path.join(src, 'deep', 'a', 'b')), 'so is every directory under a recursive glob');
  assert.ok(!inputs.files.includes(path.join(src, 'other.c')), 'a target the tool does not need is not');
});

test('any change make would rebuild for makes the stamp stale; a rebuild stamps it again', { skip: !haveCmake && 'cmake is not installed' }, async (t) => {
  const changes: [string, (src: string, build: string) => void][] = [
    ['the tool source', (src) => edit(path.join(src, 'main.c'), FILES['main.c'] + '/* edited */\n')],
    ['a library source', (src) => edit(path.join(src, 'lib/part.c'), FILES['lib/part.c'] + '/* edited */\n')],
    ['an included header', (src) => edit(path.join(src, 'include/parts.h'), FILES['include/parts.h'] + '/* edited */\n')],
    ['CMakeLists.txt', (src) => edit(path.join(src, 'CMakeLists.txt'), FILES['CMakeLists.txt'] + '# edited\n')],
    ['a new source in a globbed directory', (src) => edit(path.join(src, 'lib/extra.c'), 'int extra(void) { return 2; }\n')],
    ['a source removed from a globbed directory', (src) => {
      edit(path.join(src, 'lib/gone.c'), 'int gone(void) { return 3; }\n');
      fs.rmSync(path.join(src, 'lib/gone.c'));
    }],
    ['a new source deep in a recursively globbed directory', (src) => edit(path.join(src, 'deep/a/b/more.c'), 'int more(void) { return 5; }\n')],
    ['the tool deleted', (_src, build) => fs.rmSync(path.join(build, 'tool'))],
    ['the cache edited', (_src, build) => fs.appendFileSync(path.join(build, 'CMakeCache.txt'), '\n')],
  ];
  const { src, build } = builtProject();
  for (const [what, change] of changes) {
    await t.test(what, () => {
      assert.equal(stampSaysCurrent(build, 'tool'), true, 'current before');
      change(src, build);
      assert.equal(stampSaysCurrent(build, 'tool'), false, 'stale after');
      // Built right after the change, the change is too recent to stamp (it may have been made
      // while make was reading); the next build stamps.
      const past = new Date(Date.now() - 60_000);
      for (const f of ['main.c', 'lib/part.c', 'include/parts.h', 'CMakeLists.txt', 'lib', 'lib/extra.c', 'deep/a/b', 'deep/a/b/more.c']) {
        if (fs.existsSync(path.join(src, f))) fs.utimesSync(path.join(src, f), past, past);
      }
      assert.equal(rebuild(build), true);
      assert.equal(stampSaysCurrent(build, 'tool'), true, 'current after a rebuild');
    });
  }
});

test('a change during the build is not stamped, and a damaged or foreign stamp is not believed', { skip: !haveCmake && 'cmake is not installed' }, () => {
  const { src, build } = builtProject();
  // A source written after the build started: the tool may not contain it.
  const started = nowNs();
  edit(path.join(src, 'main.c'), FILES['main.c'] + '/* during the build */\n');
  execFileSync('cmake', ['--build', build, '--target', 'tool'], { stdio: 'ignore' });
  assert.equal(writeStamp(build, 'tool', started), false);
  assert.equal(stampSaysCurrent(build, 'tool'), false);

  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(src, 'main.c'), past, past);
  assert.equal(rebuild(build), true);
  const stampFile = path.join(build, '.beacon-fresh', 'tool.json');
  const good = fs.readFileSync(stampFile, 'utf8');
  for (const bad of [good.slice(0, good.length / 2), '{"format":1,"target":"tool","inputs":[]}', good.replace('"target":"tool"', '"target":"other"')]) {
    fs.writeFileSync(stampFile, bad);
    assert.equal(stampSaysCurrent(build, 'tool'), false);
  }
  // A build directory of another generator (no Makefile2) gets no stamp at all.
  const ninjaLike = path.join(root, 'not-make');
  fs.mkdirSync(ninjaLike);
  assert.equal(writeStamp(ninjaLike, 'tool', nowNs()), false);
  assert.equal(stampSaysCurrent(ninjaLike, 'tool'), false);
});

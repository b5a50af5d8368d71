// The layout check CI runs (scripts/check-layout.py, rules in src/layout.toml): the repository
// keeps its rules, and the check fails where it must: a service including another service's
// header outside a named interface, a folder's *_internal.h used from elsewhere, a hand-written
// file over the size limit. The failing cases run on small trees made here, with rules of their
// own, so they do not depend on the repository's files.
import * as assert from 'assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';

const repo = path.dirname(toolsRoot());
const script = path.join(repo, 'scripts', 'check-layout.py');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-layout-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function check(root: string): { status: number | null; out: string } {
  const r = spawnSync('python3', [script, '--root', root], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const RULES = `
[size]
max_lines = 600
suffixes = [".c", ".h", ".ts"]
exempt = ["src/runtime/generated/*", "tests/*"]

[service]
uses = ["runtime/core", "engine", "hal"]

[parts.engine]
layer = "engine"
uses = []

[parts.hal]
layer = "hal"
uses = []

[parts."runtime/core"]
layer = "runtime"
role = "core"
uses = ["engine", "hal"]
`;

/** A tree with a core and two services, ble and nfc; files maps a path to its text. */
function tree(name: string, files: Record<string, string>, rules = RULES): string {
  const root = path.join(tmp, name);
  const all: Record<string, string> = {
    'src/layout.toml': rules,
    'src/engine/engine.h': '#pragma once\n',
    'src/hal/hal_ble.h': '#pragma once\n',
    'src/runtime/core/README.md': '# runtime/core: the core\n',
    'src/runtime/core/rt_loop.h': '#include "engine.h"\n',
    'src/runtime/ble/README.md': '# runtime/ble: the radio\n',
    'src/runtime/ble/rt_ble.c': '#include "rt_loop.h"\n#include "hal_ble.h"\n',
    'src/runtime/nfc/README.md': '# runtime/nfc: the tag\n',
    'src/runtime/nfc/rt_nfc.h': '#include "rt_loop.h"\n',
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('the repository keeps its layout rules and its size limit', () => {
  const r = check(repo);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /all within the rules; no file over 600 lines/);
});

test('services may use the core and the layers below', () => {
  const r = check(tree('clean', {}));
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /runtime\/ble\s+-> runtime\/core/);
});

test('a service including another service is a forbidden edge, unless a named interface allows it', () => {
  const edge = { 'src/runtime/ble/rt_ble_tag.c': '#include "rt_nfc.h"\n' };
  const r = check(tree('forbidden', edge));
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /src\/runtime\/ble\/rt_ble_tag\.c includes rt_nfc\.h .*runtime\/ble may not use runtime\/nfc/);

  const named = `${RULES}
[[interface]]
name = "tag"
why = "the radio reads the tag"
users = ["runtime/ble"]
headers = ["runtime/nfc/rt_nfc.h"]
`;
  const allowed = check(tree('interface', edge, named));
  assert.equal(allowed.status, 0, allowed.out);
  assert.match(allowed.out, /runtime\/ble\s+-> runtime\/nfc\s+1\s+through the interface 'tag'/);
});

test("a folder's *_internal.h included from another folder is refused", () => {
  const r = check(tree('internal', {
    'src/runtime/nfc/rt_nfc_internal.h': '#pragma once\n',
    'src/runtime/nfc/rt_nfc.c': '#include "rt_nfc_internal.h"\n',
    'src/runtime/core/rt_app.c': '#include "rt_nfc_internal.h"\n',
  }));
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /src\/runtime\/core\/rt_app\.c includes rt_nfc_internal\.h/);
  assert.doesNotMatch(r.out, /rt_nfc\.c includes/);
});

test('a hand-written file over 600 lines is refused; generated files and tests are not', () => {
  const long = 'int x;\n'.repeat(601);
  const r = check(tree('long', {
    'src/runtime/ble/rt_ble_big.c': long,
    'src/runtime/generated/api_types.c': long,
    'tests/c/test_big.c': long,
  }));
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /src\/runtime\/ble\/rt_ble_big\.c: 601 lines, over 600/);
  assert.doesNotMatch(r.out, /api_types\.c: \d+ lines/);
  assert.doesNotMatch(r.out, /test_big\.c: \d+ lines/);
});

test('a runtime file outside the service folders and a folder without a README are refused', () => {
  const r = check(tree('loose', {
    'src/runtime/rt_loose.c': '\n',
    'src/runtime/uwb/rt_uwb.c': '#include "rt_loop.h"\n',
  }));
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /src\/runtime\/rt_loose\.c: in no part/);
  assert.match(r.out, /src\/runtime\/uwb: no README\.md/);
});

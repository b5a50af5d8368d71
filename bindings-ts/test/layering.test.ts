// The layers of docs/architecture.md, checked on the includes of the C sources: dependencies run
// one way, glue -> runtime services -> HAL -> port, with the engine layer below the runtime and
// the simulated world a port of its own. A file that reaches up a layer fails here.
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';

const src = path.join(path.dirname(toolsRoot()), 'src');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : /\.[ch]$/.test(e.name) ? [path.join(dir, e.name)] : []);
}

function includes(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(/^#include "([^"]+)"/gm)].map((m) => m[1]);
}

/** Headers by the layer that owns them. */
function headersOf(dir: string): Set<string> {
  return new Set(files(path.join(src, dir)).filter((f) => f.endsWith('.h')).map((f) => path.basename(f)));
}

const glue = headersOf('glue');
const world = headersOf('world');
const portHost = headersOf('port/host');
const runtime = headersOf('runtime');

const rules: { layer: string; mayNot: Set<string>; what: string }[] = [
  { layer: 'runtime', mayNot: new Set([...glue, ...world, ...portHost]), what: 'the glue, the world or a port' },
  { layer: 'hal', mayNot: new Set([...glue, ...world, ...portHost, ...runtime]), what: 'anything above the HAL' },
  { layer: 'engine', mayNot: new Set([...glue, ...world, ...portHost, ...runtime]), what: 'anything above the engine layer' },
  { layer: 'world', mayNot: portHost, what: 'the host port (the world runs in every simulator front end)' },
];

for (const { layer, mayNot, what } of rules) {
  test(`src/${layer} does not include ${what}`, () => {
    const wrong = files(path.join(src, layer)).flatMap((f) =>
      includes(f).filter((h) => mayNot.has(h)).map((h) => `${path.relative(src, f)} includes ${h}`));
    assert.deepEqual(wrong, []);
  });
}

test('runtime services call no glue function', () => {
  const calls = files(path.join(src, 'runtime')).flatMap((f) => {
    const text = fs.readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    return [...text.matchAll(/\bglue_\w+\s*\(/g)].map((m) => `${path.relative(src, f)}: ${m[0]}`);
  });
  assert.deepEqual(calls, []);
});

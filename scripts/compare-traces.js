#!/usr/bin/env node
// compare-traces.js DIR_A DIR_B: the traces two runs of a suite recorded (BEACON_TEST_RECORD, one
// directory per engine) must be the same, file for file and byte for byte. The one difference
// allowed is documented in docs/compiler.md ("What still differs"): the location Duktape adds to
// the text of an uncaught error ("(app.min.js:12)"), which JerryScript's bytecode cannot give.
// Exits 1 and names the first differing record of each file that differs.
'use strict';
const fs = require('fs');
const path = require('path');

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: compare-traces.js DIR_A DIR_B');
  process.exit(2);
}
const normalise = (text) => text.replace(/ \(app\.min\.js:\d+(?::\d+)?\)/g, '');
const list = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort() : []);
const filesA = list(a);
const filesB = list(b);
let failures = 0;
for (const f of new Set([...filesA, ...filesB])) {
  if (!filesA.includes(f) || !filesB.includes(f)) {
    console.error(`${f}: recorded in ${filesA.includes(f) ? a : b} only`);
    failures++;
    continue;
  }
  const la = normalise(fs.readFileSync(path.join(a, f), 'utf8')).split('\n');
  const lb = normalise(fs.readFileSync(path.join(b, f), 'utf8')).split('\n');
  const at = la.findIndex((l, i) => l !== lb[i]);
  if (at >= 0 || la.length !== lb.length) {
    const i = at >= 0 ? at : Math.min(la.length, lb.length);
    console.error(`${f}: record ${i + 1} differs\n  ${a}: ${la[i] ?? '(none)'}\n  ${b}: ${lb[i] ?? '(none)'}`);
    failures++;
  }
}
const total = new Set([...filesA, ...filesB]).size;
if (total === 0) {
  console.error('no traces were recorded');
  process.exit(1);
}
console.log(`${total - failures} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);

#!/usr/bin/env node
// The beacon CLI. The TypeScript sources are compiled to dist/ by `npm ci` (the root prepare
// script); this shim only forwards to them.
'use strict';
require('../dist/src/cli/main.js').main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`beacon: ${err && err.stack ? err.stack : err}\n`); process.exitCode = 1; }
);

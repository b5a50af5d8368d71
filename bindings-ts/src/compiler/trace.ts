// Error locations in runtime output, mapped back to the app's sources. The engine knows the
// compiled script as "app.min.js" (the name beacon-pack was given), so a message such as
//
//   the app failed while starting: Error: boom (app.min.js:12)
//
// becomes "Error: boom (src/tracker.ts:40:7)" with the map written beside the package
// (<package>.map). Duktape reports lines only; the minified script keeps one statement per line
// for that reason, so the line finds the statement, and the column shown is the statement's.
import * as fs from 'fs';
import * as path from 'path';
import { displayPath } from './diagnostics';
import { lookupPosition, parseSourceMap, SourceMapV3 } from './sourceMap';

export interface PackageMap {
  map: SourceMapV3;
  /** Directory the map's sources are relative to. */
  dir: string;
  /** The script name errors carry. */
  scriptName: string;
}

export function mapFileFor(pkg: string): string {
  return `${pkg}.map`;
}

/** The map beside a package, or a reason it cannot be used. */
export function loadPackageMap(pkg: string, mapFile: string = mapFileFor(pkg)): PackageMap | string {
  let text: string;
  try {
    text = fs.readFileSync(mapFile, 'utf8');
  } catch {
    return `no source map beside the package (${mapFile})`;
  }
  const map = parseSourceMap(text);
  if (!map || typeof map.file !== 'string' || map.file === '') return `${mapFile} is not a source map written by beacon build`;
  return { map, dir: path.dirname(path.resolve(mapFile)), scriptName: map.file };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `text` with every "<script>:<line>[:<column>]" replaced by the source position it came from. */
export function rewriteLocations(text: string, pm: PackageMap, cwd: string = process.cwd()): string {
  const re = new RegExp(`(?<![\\w./-])${escapeRegExp(pm.scriptName)}:(\\d+)(?::(\\d+))?`, 'g');
  return text.replace(re, (whole, line: string, column: string | undefined) => {
    const pos = lookupPosition(pm.map, Number(line), column === undefined ? undefined : Number(column));
    if (!pos) return whole;
    const file = path.isAbsolute(pos.source) ? pos.source : path.resolve(pm.dir, pos.source);
    return `${displayPath(file, cwd)}:${pos.line}:${pos.column}`;
  });
}

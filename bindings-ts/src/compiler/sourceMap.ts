// Just enough of source map v3 to look a position up: rollup reports its own warnings at
// positions in TypeScript's output, which moves lines around (elided imports and types).

export interface RawSourceMap {
  version: number;
  mappings: string;
}

type Segment = [genColumn: number, source: number, line: number, column: number];

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeVlqs(text: string): number[] | undefined {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const digit = BASE64.indexOf(ch);
    if (digit < 0) return undefined;
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2));
    value = 0;
    shift = 0;
  }
  return shift === 0 ? values : undefined;
}

/** Decoded mappings, one array of segments per generated line. */
export function decodeMappings(mappings: string): Segment[][] | undefined {
  const lines: Segment[][] = [];
  let source = 0;
  let line = 0;
  let column = 0;
  for (const lineText of mappings.split(';')) {
    const segments: Segment[] = [];
    let genColumn = 0;
    for (const segText of lineText.split(',')) {
      if (!segText) continue;
      const v = decodeVlqs(segText);
      if (!v || v.length === 0) return undefined;
      genColumn += v[0];
      if (v.length >= 4) {
        source += v[1];
        line += v[2];
        column += v[3];
        segments.push([genColumn, source, line, column]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

/**
 * Original position of a generated one (both 1-based line and column), or undefined when the
 * map has nothing for that line.
 */
export function originalPosition(
  map: RawSourceMap,
  line: number,
  column: number,
): { line: number; column: number } | undefined {
  const lines = decodeMappings(map.mappings);
  const segments = lines?.[line - 1];
  if (!segments || segments.length === 0) return undefined;
  const col0 = column - 1;
  let best = segments[0];
  for (const s of segments) {
    if (s[0] > col0) break;
    best = s;
  }
  // Inside a segment, the offset from its start carries over: a segment is one token or a run
  // of text copied as it was.
  const offset = Math.max(0, col0 - best[0]);
  return { line: best[2] + 1, column: best[3] + offset + 1 };
}

/** A whole source map (version 3), as written beside a package. */
export interface SourceMapV3 {
  version: number;
  file?: string;
  sourceRoot?: string;
  sources: string[];
  sourcesContent?: (string | null)[];
  names?: string[];
  mappings: string;
}

export interface SourcePosition {
  /** As the map names it (relative to the map's directory unless absolute). */
  source: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/**
 * Where a generated position came from. Without a column (an engine that reports lines only),
 * the first mapped segment of the line: the statement that starts it.
 */
export function lookupPosition(map: SourceMapV3, line: number, column?: number): SourcePosition | undefined {
  const segments = decodeMappings(map.mappings)?.[line - 1];
  if (!segments || segments.length === 0) return undefined;
  let best = segments[0];
  if (column !== undefined) {
    for (const s of segments) {
      if (s[0] > column - 1) break;
      best = s;
    }
  }
  const source = map.sources[best[1]];
  if (source === undefined) return undefined;
  return { source: (map.sourceRoot ?? '') + source, line: best[2] + 1, column: best[3] + 1 };
}

/** The map of a script that got `lines` lines put in front of it (mapping to nothing). */
export function shiftLines<T extends { mappings: string }>(map: T, lines: number): T {
  return { ...map, mappings: ';'.repeat(lines) + map.mappings };
}

/** Parse a source map file's text; undefined when it is not one. */
export function parseSourceMap(text: string): SourceMapV3 | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const o = v as Partial<SourceMapV3>;
  if (!o || typeof o !== 'object' || o.version !== 3 || typeof o.mappings !== 'string' || !Array.isArray(o.sources)) {
    return undefined;
  }
  return o as SourceMapV3;
}

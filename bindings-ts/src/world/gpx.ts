// GPX 1.1 tracks into the track points of a world scenario: {t, lat, long, alt}, t in ms since
// the scenario's start. The simulated world moves a device along them (src/runtime/location/rt_gnss_track:
// geodesic interpolation between points, reception and noise on top).
//
// The XML is read with fast-xml-parser (maintained, no native code, validates well-formedness
// with line and column): a GPX file is XML with namespaces, entities and CDATA, which no regular
// expression reads reliably. What the parser gives is then checked field by field; every error
// names the element it is about, e.g. "gpx/trk[0]/trkseg[1]/trkpt[3]/time".
import * as fs from 'fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** One point of a world track. */
export interface TrackPoint {
  /** Milliseconds since the scenario's start (negative before it). */
  t: number;
  /** Latitude, degrees. */
  lat: number;
  /** Longitude, degrees. */
  long: number;
  /** Altitude, m (the GPX <ele>). */
  alt: number;
}

export interface GpxOptions {
  /**
   * The scenario's start, as a Date, ms since 1970 or an ISO date-time. Default: the time of the
   * first track point.
   */
  start?: Date | number | string;
  /** Altitude for points without <ele>. Default 0. */
  defaultAlt?: number;
}

/** A GPX file that cannot be used; path names the element, e.g. gpx/trk[0]/trkseg[0]/trkpt[2]. */
export class GpxError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ''}${path}: ${detail}`);
    this.name = 'GpxError';
  }
}

type XmlNode = { [key: string]: unknown };

// xsd:decimal, the type of GPX coordinates and elevation: no exponent, no NaN.
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
// xsd:dateTime as GPX writes it; GPX times are UTC, so one without a zone is read as UTC.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  // An element with attributes of its own keeps its text under '#text'.
  if (isNode(value) && typeof value['#text'] === 'string') return (value['#text'] as string).trim();
  return undefined;
}

function decimal(raw: unknown, path: string, what: string): number {
  const s = text(raw);
  if (s === undefined || !DECIMAL.test(s)) {
    throw new GpxError(path, `${what} must be a decimal number, got ${JSON.stringify(raw ?? null)}`);
  }
  return Number(s);
}

/** ms since 1970 of an xsd:dateTime, or an error naming the element. */
export function parseGpxTime(raw: string, path = 'time'): number {
  const m = DATE_TIME.exec(raw.trim());
  if (!m) {
    throw new GpxError(path, `not a date-time like 2024-05-01T10:00:00Z: ${JSON.stringify(raw)}`);
  }
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const ms = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const local = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(local);
  // Date.UTC rolls 30 February over into March; a GPX file that says it is wrong.
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new GpxError(path, `no such date-time: ${JSON.stringify(raw)}`);
  }
  let offset = 0;
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1 : 1;
    offset = sign * (Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(4, 6))) * 60000;
  }
  return local - offset;
}

function scenarioStart(start: GpxOptions['start']): number | undefined {
  if (start === undefined) return undefined;
  const ms = start instanceof Date ? start.getTime() : typeof start === 'number' ? start : parseGpxTime(start, 'options.start');
  if (!Number.isFinite(ms)) throw new GpxError('options.start', `not a time: ${String(start)}`);
  return ms;
}

function children(node: XmlNode, name: string, path: string): XmlNode[] {
  const value = node[name];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((child, i) => {
    // An empty element such as <trkseg/> comes back as '' from the parser.
    if (child === '') return {};
    if (!isNode(child)) throw new GpxError(`${path}/${name}[${i}]`, 'unexpected text content');
    return child;
  });
}

/** Reads a GPX 1.1 (or 1.0) document's track points, in document order. */
export function parseGpx(xml: string, options: GpxOptions = {}, file?: string): TrackPoint[] {
  try {
    return parse(xml, options);
  } catch (e) {
    if (e instanceof GpxError && file !== undefined) throw new GpxError(e.path, e.detail, file);
    throw e;
  }
}

function parse(xml: string, options: GpxOptions): TrackPoint[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new GpxError(`line ${valid.err.line}, column ${valid.err.col}`, `not well-formed XML: ${valid.err.msg}`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    // Numbers and times are checked here, strictly, rather than guessed by the parser.
    parseTagValue: false,
    parseAttributeValue: false,
    removeNSPrefix: true,
    isArray: (name) => name === 'trk' || name === 'trkseg' || name === 'trkpt',
  });
  const doc = parser.parse(xml) as XmlNode;
  const gpx = doc.gpx;
  if (!isNode(gpx)) {
    const root = Object.keys(doc).filter((k) => !k.startsWith('?'));
    throw new GpxError(root[0] ?? '/', `the root element must be <gpx>, not ${root.length ? `<${root[0]}>` : 'missing'}`);
  }
  const version = gpx['@_version'];
  if (version !== undefined && version !== '1.1' && version !== '1.0') {
    throw new GpxError('gpx/@version', `GPX ${String(version)} is not supported (1.1 or 1.0)`);
  }
  const defaultAlt = options.defaultAlt ?? 0;
  if (!Number.isFinite(defaultAlt)) throw new GpxError('options.defaultAlt', 'must be a finite number');

  const raw: { time: number; lat: number; long: number; alt: number; path: string }[] = [];
  children(gpx, 'trk', 'gpx').forEach((trk, ti) => {
    const trkPath = `gpx/trk[${ti}]`;
    children(trk, 'trkseg', trkPath).forEach((seg, si) => {
      const segPath = `${trkPath}/trkseg[${si}]`;
      children(seg, 'trkpt', segPath).forEach((pt, pi) => {
        const path = `${segPath}/trkpt[${pi}]`;
        const lat = decimal(pt['@_lat'], `${path}/@lat`, 'lat');
        const long = decimal(pt['@_lon'], `${path}/@lon`, 'lon');
        if (lat < -90 || lat > 90) throw new GpxError(`${path}/@lat`, `lat ${lat} is outside -90..90`);
        if (long < -180 || long > 180) throw new GpxError(`${path}/@lon`, `lon ${long} is outside -180..180`);
        for (const field of ['ele', 'time']) {
          if (Array.isArray(pt[field])) throw new GpxError(`${path}/${field}`, `more than one <${field}>`);
        }
        const alt = pt.ele === undefined ? defaultAlt : decimal(pt.ele, `${path}/ele`, 'ele');
        const timeText = text(pt.time);
        if (timeText === undefined || timeText === '') {
          throw new GpxError(`${path}/time`, 'every track point needs a <time> to place it in the scenario');
        }
        const time = parseGpxTime(timeText, `${path}/time`);
        const prev = raw[raw.length - 1];
        if (prev && time <= prev.time) {
          throw new GpxError(
            `${path}/time`,
            `times must increase along the track: ${timeText} is not after ${new Date(prev.time).toISOString()} (${prev.path})`,
          );
        }
        raw.push({ time, lat, long, alt, path });
      });
    });
  });
  if (raw.length === 0) throw new GpxError('gpx', 'no track points (<trk><trkseg><trkpt>)');
  const start = scenarioStart(options.start) ?? raw[0].time;
  return raw.map(({ time, lat, long, alt }) => ({ t: time - start, lat, long, alt }));
}

/** Reads a GPX file; errors name the file and the element. */
export function readGpxFile(file: string, options: GpxOptions = {}): TrackPoint[] {
  return parseGpx(fs.readFileSync(file, 'utf8'), options, file);
}

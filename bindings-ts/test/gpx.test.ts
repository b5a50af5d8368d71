// GPX 1.1 import for world scenarios (bindings-ts/src/world/gpx.ts): a hand-written file under
// tests/world, and bad input that must be refused with the element it is about.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { GpxError, parseGpx, parseGpxTime, readGpxFile } from '../src/world/gpx';
import { toolsRoot } from '../src/codegen/versions';

const WALK = path.join(path.dirname(toolsRoot()), 'tests', 'world', 'walk.gpx');

test('reads every track point of every segment, in order, with times from the first point', () => {
  const points = readGpxFile(WALK);
  assert.deepEqual(points, [
    { t: 0, lat: 47.3769, long: 8.5417, alt: 408 },
    { t: 30000, lat: 47.37735, long: 8.5417, alt: 408.5 },
    // 10:01:00+02:00 is 08:01:00Z.
    { t: 60000, lat: 47.3778, long: 8.5421, alt: 409.2 },
    { t: 300250, lat: 47.3781, long: 8.5429, alt: 410 },
    // No <ele>: the default altitude.
    { t: 340000, lat: 47.3784, long: 8.5437, alt: 0 },
  ]);
  // Waypoints and metadata times are not track points.
  assert.equal(points.length, 5);
});

test('the scenario start and the default altitude can be given', () => {
  const points = readGpxFile(WALK, { start: '2024-05-01T07:59:50Z', defaultAlt: 400 });
  assert.equal(points[0].t, 10000);
  assert.equal(points[4].alt, 400);
  assert.equal(readGpxFile(WALK, { start: Date.UTC(2024, 4, 1, 8, 0, 10) })[0].t, -10000);
  assert.equal(readGpxFile(WALK, { start: new Date('2024-05-01T08:00:00Z') })[1].t, 30000);
});

function gpx(trkpts: string, attrs = 'version="1.1" xmlns="http://www.topografix.com/GPX/1/1"'): string {
  return `<?xml version="1.0"?><gpx ${attrs}><trk><trkseg>${trkpts}</trkseg></trk></gpx>`;
}

const OK = '<trkpt lat="1" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>';

function refuses(xml: string, wantPath: string, wantDetail: RegExp): void {
  assert.throws(
    () => parseGpx(xml),
    (e: unknown) => {
      assert.ok(e instanceof GpxError, String(e));
      assert.equal(e.path, wantPath);
      assert.match(e.detail, wantDetail);
      assert.ok(e.message.includes(wantPath));
      return true;
    },
  );
}

test('bad points are refused with the element path', () => {
  refuses(gpx(OK + '<trkpt lat="91" lon="2"><time>2024-01-01T00:00:01Z</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[1]/@lat', /outside -90..90/);
  refuses(gpx('<trkpt lat="1" lon="-180.5"><time>2024-01-01T00:00:00Z</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/@lon', /outside/);
  refuses(gpx('<trkpt lat="1e2" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/@lat', /decimal/);
  refuses(gpx('<trkpt lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/@lat', /decimal/);
  refuses(gpx('<trkpt lat="1" lon="2"><ele>high</ele><time>2024-01-01T00:00:00Z</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/ele', /decimal/);
  refuses(gpx('<trkpt lat="1" lon="2"></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/time', /needs a <time>/);
  refuses(gpx('<trkpt lat="1" lon="2"><time>yesterday</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/time', /date-time/);
  refuses(gpx('<trkpt lat="1" lon="2"><time>2024-02-30T00:00:00Z</time></trkpt>'), 'gpx/trk[0]/trkseg[0]/trkpt[0]/time', /no such date-time/);
  refuses(
    gpx(OK + '<trkpt lat="1" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>'),
    'gpx/trk[0]/trkseg[0]/trkpt[1]/time',
    /must increase.*trkpt\[0\]/,
  );
  refuses(
    gpx('<trkpt lat="1" lon="2"><ele>1</ele><ele>2</ele><time>2024-01-01T00:00:00Z</time></trkpt>'),
    'gpx/trk[0]/trkseg[0]/trkpt[0]/ele',
    /more than one/,
  );
});

test('documents that are not GPX tracks are refused', () => {
  refuses('<gpx version="1.1"><trk><trkseg></trk></gpx>', 'line 1, column 33', /not well-formed XML.*trkseg/);
  refuses('<kml><Document/></kml>', 'kml', /root element must be <gpx>/);
  refuses(gpx(OK, 'version="2.0"'), 'gpx/@version', /not supported/);
  refuses('<gpx version="1.1"><wpt lat="1" lon="2"/></gpx>', 'gpx', /no track points/);
  refuses('<gpx version="1.1"><trk><trkseg/></trk></gpx>', 'gpx', /no track points/);
  // The file's name is in the message when read from a file.
  assert.throws(() => readGpxFile(path.join(path.dirname(WALK), 'missing.gpx')), /ENOENT/);
});

test('namespace prefixes, GPX 1.0 and CDATA are read like plain GPX 1.1', () => {
  const prefixed =
    '<g:gpx xmlns:g="http://www.topografix.com/GPX/1/1" version="1.1"><g:trk><g:trkseg>' +
    '<g:trkpt lat="10.5" lon="-20.25"><g:ele>5</g:ele><g:time><![CDATA[2024-01-01T00:00:00Z]]></g:time></g:trkpt>' +
    '</g:trkseg></g:trk></g:gpx>';
  assert.deepEqual(parseGpx(prefixed), [{ t: 0, lat: 10.5, long: -20.25, alt: 5 }]);
  assert.equal(parseGpx(gpx(OK, 'version="1.0"')).length, 1);
});

test('date-times: zones, fractions, and GPX times without a zone read as UTC', () => {
  assert.equal(parseGpxTime('2024-01-01T00:00:00Z'), Date.UTC(2024, 0, 1));
  assert.equal(parseGpxTime('2024-01-01T02:30:00+02:30'), Date.UTC(2024, 0, 1));
  assert.equal(parseGpxTime('2023-12-31T23:00:00-01:00'), Date.UTC(2024, 0, 1));
  assert.equal(parseGpxTime('2024-01-01T00:00:00.1239Z'), Date.UTC(2024, 0, 1) + 123);
  assert.equal(parseGpxTime('2024-01-01T00:00:00'), Date.UTC(2024, 0, 1));
  assert.throws(() => parseGpxTime('2024-01-01T24:00:00Z'), GpxError);
  assert.throws(() => parseGpxTime('2024-01-01 00:00:00Z'), GpxError);
});

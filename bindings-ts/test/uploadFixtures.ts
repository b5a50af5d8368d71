// What the upload tests share, against the listening simulator and against the firmware image on
// QEMU: a scratch directory whose devices are killed at exit, the CLI run in-process, packages
// re-stamped with a valid CRC after a deliberate change, an upload whose link is lost half way,
// and two apps whose output tells whether they were restarted and whether their storage changed.
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { CliIo } from '../src/cli/io';
import { main } from '../src/cli/main';
import { SmpClient, uploadPackage } from '../src/smp';
import { ListenDevice } from '../src/testing/listen';

export interface UploadScratch {
  root: string;
  /** Devices started by the test: killed when the process exits. */
  devices: ListenDevice[];
  /** Write a file into the scratch directory; returns its path. */
  write(name: string, data: Buffer | string): string;
}

export function uploadScratch(prefix: string): UploadScratch {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const devices: ListenDevice[] = [];
  process.on('exit', () => {
    for (const d of devices) d.kill();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return {
    root,
    devices,
    write(name, data) {
      const f = path.join(root, name);
      fs.writeFileSync(f, data);
      return f;
    },
  };
}

/** `beacon <argv>` in this process, with its output captured. */
export async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t) };
  const code = await main(argv, io);
  return { code, out, err };
}

/** The package with its header CRC made valid again (the CRC covers all but its own field). */
export function withCrc(pkg: Buffer): Buffer {
  let crc = zlib.crc32(pkg.subarray(0, 36));
  crc = zlib.crc32(pkg.subarray(40), crc);
  pkg.writeUInt32LE(crc >>> 0, 36);
  return pkg;
}

// App a counts its starts in storage record 1 and shows the record on every tick, so its output
// tells whether it was restarted and whether its storage changed.
export const APP_A = `
const n = (storage.read(1) as number | undefined) ?? 0;
storage.save(1, n + 1);
print('a started, record ' + (n + 1));
timers.repeat(50, () => print('a tick, record ' + storage.read(1)));
`;
// App b is larger than one request (several chunks) and says so when it starts.
export const APP_B = `const words = [${Array.from({ length: 900 }, (_, i) => `'w${i}'`).join(', ')}];
const record = storage.read(1) as number;
// An index known only at run time keeps the whole list in the package.
print('b started, record ' + record + ', ' + words.length + ' words, ' + words[(record * 7) % words.length]);
`;

/** Upload pkg in 128-byte chunks and lose the link at about half way (the upload rejects with
 * 'link lost'); the client is closed. Returns how many bytes the device had acknowledged, which
 * must be some but not all. */
export async function uploadLosingLinkHalfWay(client: SmpClient, pkg: Buffer): Promise<number> {
  let sent = 0;
  await assert.rejects(
    uploadPackage(client, pkg, {
      chunkSize: 128,
      onProgress: (done, total) => {
        sent = done;
        if (done > total / 2) throw new Error('link lost');
      },
    }),
    /link lost/,
  );
  await client.close();
  assert.ok(sent > 0 && sent < pkg.length);
  return sent;
}

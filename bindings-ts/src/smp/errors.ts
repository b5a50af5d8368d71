// SMP error codes and what they mean to someone uploading an app (rt_smp.h, MCUmgr's
// mgmt_defines.h and fs_mgmt.h).
import { Group } from './header';

export const Rc = {
  OK: 0,
  UNKNOWN: 1,
  NOMEM: 2,
  INVAL: 3,
  TIMEOUT: 4,
  NOENT: 5,
  BADSTATE: 6,
  MSGSIZE: 7,
  NOTSUP: 8,
  CORRUPT: 9,
  BUSY: 10,
  ACCESSDENIED: 11,
  TOO_OLD: 12,
  TOO_NEW: 13,
  PERUSER: 256,
} as const;

export const FsRc = { INVALID_NAME: 2, NOT_FOUND: 3, READ_FAILED: 7, WRITE_FAILED: 10, HASH_NOT_FOUND: 13, FILE_EMPTY: 16 } as const;
export const BeaconRc = { REFUSED: 1, NOTHING_STAGED: 2, INCOMPLETE: 3, NOT_OWNER: 4 } as const;

const RC_TEXT: Record<number, string> = {
  1: 'unknown error',
  2: 'not enough room on the device (the package is larger than its staging area)',
  3: 'the device found the request invalid',
  4: 'the device timed out',
  5: 'no such file or entry',
  6: 'the device is in a state that does not allow this',
  7: 'the answer would be too large for the device',
  8: 'the device does not support this command',
  9: 'the device received a damaged request',
  10: 'the device is busy with another upload (it is free again once that one installs, or after it has been idle for a while)',
  11: 'access denied',
  12: 'the device needs a newer SMP version',
  13: 'the device does not speak this SMP version',
};

const FS_TEXT: Record<number, string> = {
  1: 'unknown file error',
  2: 'the device does not accept this file name',
  3: 'no such file on the device',
  7: 'the device could not read the file',
  10: 'the device could not write the file (flash write failed)',
  11: 'the offset is not valid',
  12: 'the offset is beyond the end of the file',
  13: 'the device does not offer this hash type',
  16: 'the file is empty',
};

const BEACON_TEXT: Record<number, string> = {
  1: 'the device refused the package',
  2: 'no package is staged on the device',
  3: 'the upload is incomplete',
  4: 'the staged package belongs to another upload',
};

/** An error answer from the device: `rc` (SMP version 1 or SMP errors) or `err` {group, rc}. */
export class SmpError extends Error {
  constructor(
    readonly rc: number,
    readonly group: number | undefined,
    readonly groupRc: number | undefined,
    readonly deviceMessage: string | undefined,
  ) {
    super(describe(rc, group, groupRc, deviceMessage));
    this.name = 'SmpError';
  }

  /** Whether this is error `code` of `group` (either as {err} or as SMP version 1's 256 + code). */
  is(group: number, code: number): boolean {
    if (this.group === group) return this.groupRc === code;
    return group === Group.BEACON && this.rc === Rc.PERUSER + code;
  }
}

function describe(rc: number, group: number | undefined, groupRc: number | undefined, msg: string | undefined): string {
  let text: string;
  if (group !== undefined && groupRc !== undefined) {
    const table = group === Group.FS ? FS_TEXT : group === Group.BEACON ? BEACON_TEXT : {};
    text = table[groupRc] ?? `error ${groupRc} of group ${group}`;
  } else if (rc > Rc.PERUSER && BEACON_TEXT[rc - Rc.PERUSER]) {
    text = BEACON_TEXT[rc - Rc.PERUSER];
  } else {
    text = RC_TEXT[rc] ?? `error ${rc}`;
  }
  return msg ? `${text}: ${msg}` : text;
}

/** No answer after every retry. */
export class SmpTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SmpTimeoutError';
  }
}

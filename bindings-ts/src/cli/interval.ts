// Time values on the command line. Intervals use the device's interval strings: a number, an
// optional space and a unit (ms; s, sec, secs; m, min, mins; h, hour, hours; d, day, days; w,
// week, weeks), e.g. '30s', '10 secs', '1 hour'. A bare number is milliseconds, as for toMs().

const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ['ms', 1],
  ['s', 1000],
  ['sec', 1000],
  ['secs', 1000],
  ['m', 60_000],
  ['min', 60_000],
  ['mins', 60_000],
  ['h', 3_600_000],
  ['hour', 3_600_000],
  ['hours', 3_600_000],
  ['d', 86_400_000],
  ['day', 86_400_000],
  ['days', 86_400_000],
  ['w', 604_800_000],
  ['week', 604_800_000],
  ['weeks', 604_800_000],
]);

/** Milliseconds of an interval string; throws RangeError with a message for the user. */
export function parseInterval(text: string): number {
  const m = /^(\d+(?:\.\d+)?|\.\d+) ?([a-z]+)?$/.exec(text);
  const unit = m?.[2] === undefined ? 1 : UNIT_MS.get(m[2]);
  if (!m || unit === undefined) {
    throw new RangeError(
      `'${text}' is not an interval (expected a number and a unit: ms, s, sec(s), m, min(s), h, hour(s), d, day(s), w, week(s); e.g. 30s, 10m, '1 hour')`,
    );
  }
  const ms = Math.round(Number(m[1]) * unit);
  if (ms < 1) throw new RangeError(`interval '${text}' is shorter than 1 ms`);
  if (!Number.isSafeInteger(ms)) throw new RangeError(`interval '${text}' is too long`);
  return ms;
}

/**
 * A UTC time as milliseconds since 1970: either those milliseconds, or an ISO 8601 date or date
 * and time. A time without a zone is taken as UTC, not local time.
 */
export function parseUtc(text: string): number {
  if (/^\d+$/.test(text)) {
    const ms = Number(text);
    if (!Number.isSafeInteger(ms)) throw new RangeError(`time '${text}' is out of range`);
    return ms;
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  if (!iso) {
    throw new RangeError(
      `'${text}' is not a UTC time (expected milliseconds since 1970 or ISO 8601, e.g. 2024-05-01T12:00:00Z)`,
    );
  }
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(iso[i] ?? 0));
  // Date.parse would roll impossible dates over (Feb 30 becomes Mar 1), so check the fields.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    throw new RangeError(`'${text}' is not a valid date and time`);
  }
  const zone = iso[8] ?? 'Z';
  const ms = Date.parse(
    `${iso[1]}-${iso[2]}-${iso[3]}T${iso[4] ?? '00'}:${iso[5] ?? '00'}:${iso[6] ?? '00'}${iso[7] ?? ''}${zone}`,
  );
  if (!Number.isFinite(ms)) throw new RangeError(`'${text}' is not a valid date and time`);
  if (ms < 0) throw new RangeError(`time '${text}' is before 1970`);
  return ms;
}

// The argument vocabulary of the device API. The codegen reads these aliases by name (with their
// type arguments as constraints) to generate argument checks; the typings for micro-app authors
// show them as the plain TypeScript types on the right. Nothing here exists at run time.

/** Any value; converted to text as String(value) does. At most MaxLen characters when given. */
type Stringable<MaxLen extends number = 0> = unknown;
/** A string of at most MaxLen characters. */
type Str<MaxLen extends number = 0> = string;
/**
 * A duration: a number in Unit, or a string such as '200ms', '30s', '10 secs', '1h', '1 day'
 * (units ms; s, sec, secs; m, min, mins; h, hour, hours; d, day, days; w, week, weeks).
 * Min and Max bound the value in Unit (0 means unbounded).
 */
type Interval<Unit extends 'ms' | 's', Min extends number = 0, Max extends number = 0> =
  number | string;
/** A number from Min to Max. */
type Num<Min extends number, Max extends number> = number;
/** A whole number from Min to Max. */
type Int<Min extends number, Max extends number> = number;
/** Bytes, as an ArrayBuffer or a hex string, MinLen to MaxLen bytes long. */
type Bytes<MinLen extends number, MaxLen extends number> = ArrayBuffer | string;
/** A JSON-compatible value; functions, promises and handles inside it are refused (ESR0203). */
type PureObject = unknown;
/** A UTC time: milliseconds since 1970 or a Date. */
type Timestamp = number | Date;
/** A number snapped down to the highest allowed value not above it. */
type SnapDown<Allowed extends number[]> = number;
/** An array of numbers, each one of Allowed, not empty. */
type OneOfEach<Allowed extends number[]> = number[];
/** A number not below Min. */
type AtLeast<Min extends number> = number;
/**
 * An array of exactly Length numbers, each from Min to Max (an RGB colour is
 * NumTuple<3, 0, 1>). At most 4 long.
 */
type NumTuple<Length extends number, Min extends number, Max extends number> = readonly number[];

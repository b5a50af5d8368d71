// The API as the codegen sees it: read once from the declarations in bindings-ts/api/, then
// turned into C glue, per-version typings and the docs table. Every emitter works from this IR,
// never from the TypeScript AST, so the three outputs cannot disagree.

/** What a value must be and how it is converted for C. Bounds use +-Infinity when open. */
export type TypeIR =
  | { kind: 'any' }
  | { kind: 'stringable'; maxLen: number } // maxLen 0: no limit
  | { kind: 'string'; maxLen: number }
  | { kind: 'interval'; unit: 'ms' | 's'; min: number; max: number }
  | { kind: 'number'; min: number; max: number; integer: boolean }
  | { kind: 'boolean' }
  | { kind: 'bytes'; minLen: number; maxLen: number }
  | { kind: 'byteSource' } // an array of byte values or an ArrayBuffer
  | { kind: 'function' }
  | { kind: 'pure' }
  | { kind: 'timestamp' }
  | { kind: 'snapDown'; values: number[] }
  | { kind: 'oneOfEach'; values: number[] }
  | { kind: 'numTuple'; length: number; min: number; max: number } // exactly length numbers
  | { kind: 'object' } // any object, checked by the runtime
  | { kind: 'record'; name: string }
  | { kind: 'handle'; name: string }
  | { kind: 'array'; of: TypeIR }
  | { kind: 'promise'; of: TypeIR }
  | { kind: 'void' };

export interface ParamIR {
  name: string;
  type: TypeIR;
  /** The parameter's type as micro-app authors see it (vocabulary aliases resolved). */
  typeText: string;
  optional: boolean;
  nullable: boolean;
  /** From a `@default name value` tag. */
  defaultValue?: DefaultValue;
  /** From an `@invalid name ESRxxxx` tag: a value this parameter refuses throws that coded error
   * (message unchanged) instead of a TypeError or RangeError. */
  invalidCode?: string;
  doc: string;
}

/** A JSON default: numbers, booleans, strings, or the list of values of a OneOfEach. */
export type DefaultValue = number | boolean | string | number[];

export interface ThrowsIR {
  code: string;
  text: string;
  /** Versions in which the call throws it: `@throws ESR0205 [since 0.2.6] text` narrows it. */
  mask: number;
}

export interface OverloadIR {
  /** Bit i set: present in API_VERSIONS[i]. */
  mask: number;
  params: ParamIR[];
  returns: TypeIR;
  returnText: string;
  throws: ThrowsIR[];
  doc: string;
  deprecated?: string;
  /** `@rejects`: an argument the glue refuses rejects the returned promise (not thrown). */
  rejects?: boolean;
  /** file:line of the declaration, for messages. */
  pos: string;
}

export interface FunctionIR {
  /** Name as JavaScript sees it. */
  name: string;
  /** Namespace path ('' for globals, 'ble.build'), or the handle interface name for methods. */
  owner: string;
  /** The runtime's C function that implements it. */
  native: string;
  overloads: OverloadIR[];
  isMethod: boolean;
  /** Set on another name of a function (`@alias`): the name it stands for. */
  aliasOf?: string;
}

export interface HandleIR {
  name: string;
  /** The runtime's native type: methods are rt_<nativeType>_<method>. */
  nativeType: string;
  mask: number;
  methods: FunctionIR[];
  doc: string;
}

export interface FieldIR {
  name: string;
  type: TypeIR;
  typeText: string;
  optional: boolean;
  nullable: boolean;
  defaultValue?: DefaultValue;
  mask: number;
  doc: string;
}

export interface RecordIR {
  name: string;
  fields: FieldIR[];
  doc: string;
}

export interface NamespaceIR {
  path: string;
  mask: number;
  doc: string;
  /** An enum (its members are constants) rather than a namespace of functions. */
  isEnum: boolean;
}

export interface ConstIR {
  owner: string;
  name: string;
  /** The value per version, as JSON text, with the versions it applies to. */
  values: { mask: number; json: string }[];
  doc: string;
}

export interface ApiIR {
  namespaces: NamespaceIR[];
  functions: FunctionIR[];
  handles: HandleIR[];
  records: RecordIR[];
  consts: ConstIR[];
}

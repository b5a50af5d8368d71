// A small API that uses every part of the declaration vocabulary.

declare function hello(text: Stringable<16>): void;

/** A demo namespace. */
declare namespace demo {
  /**
   * Configures the demo.
   * @since 0.1.5
   * @throws ESR0004 when full
   * @default power -4
   */
  function configure(name: Str<20>, power?: SnapDown<[-40, -20, -4, 0, 4]>, options?: DemoOptions): number;
  /**
   * Configures the demo the old way.
   * @until 0.0.9
   * @native rt_demo_configure
   */
  function configure(name: Str<20>): number;
  /** Calls back with values; null unregisters. */
  function watch(callback: ((value: number) => void) | null): void;
  function open(id: Bytes<2, 4>, at: Timestamp, every: Interval<'s', 120, 7776000>, data: PureObject): DemoHandle;
  /** @versions 0.0.9 0.2.6 */
  function gap(): boolean;

  enum Mode {
    /** @values 0.0.9=0 */
    FAST = 100,
    SLOW = 101,
  }

  /** @value [1,0,0] */
  const RED: number[];

  namespace inner {
    /** @since 0.2.6 */
    function deep(level: Int<0, 4>): void;
  }
}

interface DemoOptions {
  passive?: boolean;
  /** @default [37, 39] */
  channels?: OneOfEach<[37, 38, 39]>;
  /** @default 100 */
  window?: Interval<'ms', 1, 10240>;
}

/** @handle demo */
interface DemoHandle {
  stop(): void;
  /** @since 0.2.6 */
  level(value: Int<0, 4>): DemoHandle;
}

interface DemoStats {
  count: number;
  ok: boolean;
  /** @since 0.2.6 */
  name?: string;
}

declare namespace demo {
  function stats(): DemoStats;
  /**
   * Paints a spot; null paints everywhere.
   * @throws ESR1703 [since 0.1.5] bad colour
   * @throws ESR0004 [versions 0.0.9] no paint
   * @invalid rgb ESR1703
   */
  function paint(rgb: NumTuple<3, 0, 1>, spot: DemoSpot | null): void;
  function tag(names: { [uuid: string]: ArrayBuffer }): void;
  /** Records inside an array reach the runtime unconverted: no table for DemoItem. */
  function list(items: DemoItem[] | null): void;
}

interface DemoSpot {
  x: Num<-1, 1>;
  /** A C keyword as a name: the C member is long_. */
  long?: number;
  /** @default 0 */
  y?: Num<-1, 1>;
}

interface DemoItem {
  id: number;
}

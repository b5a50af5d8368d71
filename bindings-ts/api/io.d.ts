// io: the LEDs of the ring and the buttons.
//
// An LED id is an LED number of the main ring (0 up to io.getMaxLeds() - 1) or an io.Led member.
// In 0.0.9 and 0.1.5 the LEDs are addressed as segments 0 to 2 next to the io.Led values. Ids
// are whole numbers from 0 to 255 here; whether the LED exists is the runtime's check, since
// the count depends on the hardware.

declare namespace io {
  /**
   * Turns one LED on or off. Only the main ring is controlled here; the side LEDs belong to the
   * system. On the LTE hardware each segment is a single LED.
   */
  function led(id: Int<0, 255>, state: boolean): void;
  /** Turns all ring LEDs on or off. */
  function led(state: boolean): void;

  /**
   * Sets the colour of one LED as [red, green, blue], each 0 to 1 (see io.Color). In 0.0.9 this
   * call was marked temporary.
   */
  function setLedColor(id: Int<0, 255>, color: NumTuple<3, 0, 1>): void;
  /**
   * Sets the colour of one LED from an HTML colour description ('red', '#ff8000').
   * @since 0.1.5
   */
  function setLedColor(id: Int<0, 255>, htmlColor: Str<20>): void;
  /**
   * Sets the colour of all ring LEDs as [red, green, blue], each 0 to 1 (see io.Color). In 0.0.9
   * this call was marked temporary.
   */
  function setLedColor(color: NumTuple<3, 0, 1>): void;
  /**
   * Sets the colour of all ring LEDs from an HTML colour description ('red', '#ff8000').
   * @since 0.1.5
   */
  function setLedColor(htmlColor: Str<20>): void;

  /** Sets the brightness of one LED, 0 to 1. */
  function setLedBrightness(id: Int<0, 255>, brightness: Num<0, 1>): void;
  /** Sets the brightness of all ring LEDs, 0 to 1. */
  function setLedBrightness(brightness: Num<0, 1>): void;

  /**
   * The number of LEDs available.
   * @since 0.2.6
   */
  function getMaxLeds(): number;

  /**
   * Calls callback when the main button is pressed for pressType (an io.PressType). One callback
   * per press type: a second registration for the same type replaces the first.
   * @until 0.1.5
   * @default pressType 0
   */
  function press(callback: () => void, pressType?: Int<0, 2>): void;
  /**
   * Calls callback when the main button is pressed for pressType (an io.PressType). One callback
   * per press type: a second registration for the same type replaces the first; null unregisters.
   * @since 0.2.6
   * @default pressType 0
   */
  function press(callback: (() => void) | null, pressType?: Int<0, 2>): void;
  /**
   * Calls callback when button buttonId (an io.Button) is pressed for pressType (an
   * io.PressType). One callback per button and press type: a second registration replaces the
   * first. The form without buttonId uses io.Button.MAIN.
   * @versions 0.1.5
   * @default pressType 0
   */
  function press(buttonId: Int<0, 1>, callback: () => void, pressType?: Int<0, 2>): void;
  /**
   * Calls callback when button buttonId (an io.Button) is pressed for pressType (an
   * io.PressType). One callback per button and press type: a second registration replaces the
   * first; null unregisters. The form without buttonId uses io.Button.MAIN.
   * @since 0.2.6
   * @default pressType 0
   */
  function press(buttonId: Int<0, 1>, callback: (() => void) | null, pressType?: Int<0, 2>): void;

  /**
   * Calls callback with true when the button goes down and false when it comes up, without
   * debouncing; null unregisters.
   * @since 0.2.6
   */
  function onRawPress(callback: ((state: boolean) => void) | null): void;

  /** The side LED groups. */
  enum Led {
    /** @values 0.0.9=0 */
    LTE = 100,
    /** @values 0.0.9=1 */
    GPS = 101,
    /** @values 0.0.9=2 */
    BLE = 102,
  }

  /** Colours for io.setLedColor, as [red, green, blue]. */
  namespace Color {
    /** @value [1,0,0] */
    const RED: number[];
    /** @value [0,1,0] */
    const GREEN: number[];
    /** @value [0,0,1] */
    const BLUE: number[];
    /** @value [1,1,0] */
    const YELLOW: number[];
    /** @value [1,1,1] */
    const WHITE: number[];
    /** @value [0,1,1] */
    const CYAN: number[];
    /** @value [1,0,1] */
    const MAGENTA: number[];
    /**
     * @value [0.99,0.41,0.002]
     * @since 0.1.5
     */
    const ORANGE: number[];
  }

  /** How long a press lasts, for io.press. */
  enum PressType {
    /** Shorter than 1 s. */
    SHORT = 0,
    /** Longer than 3 s. */
    LONG = 1,
    /** Longer than 5 s. */
    VERY_LONG = 2,
  }

  /** The buttons, for the buttonId form of io.press (0.1.5 and later). */
  enum Button {
    MAIN = 0,
    /** Where the hardware has one. */
    SIDE = 1,
  }
}

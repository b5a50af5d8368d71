// sensors: motion (IMU), battery and temperature.

declare namespace sensors {
  /**
   * The inertial measurement unit. In 0.0.9 it is sensors.accel.
   * @since 0.1.5
   */
  namespace imu {
    /** Acceleration in g; all zeros on hardware without the sensor. */
    function getAccel(): AccelVector;
    /** Rotation in deg/s; only the AI hardware variant has a gyroscope, elsewhere all zeros. */
    function getGyro(): RotationVector;
    /**
     * How the device lies.
     * @since 0.2.6
     */
    function getOrient(): Orientation;
    /** Sets the motion sensitivity, a sensors.imu.Level. */
    function setSens(level: Int<0, 4>): void;
    /** Sets the motion responsiveness, a sensors.imu.Level. */
    function setResp(level: Int<0, 4>): void;
    /** Sets the measuring range, a sensors.imu.Range. */
    function setRange(range: Int<0, 3>): void;
    /**
     * Calls callback with true when the device starts moving and false when it stops; null
     * unregisters.
     */
    function onMotion(callback: ((motion: boolean) => void) | null): void;
    /**
     * Calls callback when the motion event eventType (a sensors.imu.MotionEvent) occurs, with
     * data that depends on the event; null unregisters that event. Which events exist depends on
     * the hardware, and so do the options of each.
     * @since 0.2.6
     * @throws ESR1801 the event type is not supported here
     * @throws ESR0003 the hardware lacks the feature the event needs
     * @throws ESR1802 options not valid for the event
     * @throws ESR1803 internal sensor error
     * @throws ESR1804 data too big
     * @throws ESR1805 bad data format
     * @invalid eventType ESR1801
     * @invalid options ESR1802
     */
    function onMotion(
      eventType: Int<0, 8>,
      callback: ((eventData: object) => void) | null,
      options?: object
    ): void;

    /** Levels for setSens and setResp. */
    enum Level {
      LOWEST = 0,
      LOW = 1,
      MEDIUM = 2,
      HIGH = 3,
      HIGHEST = 4,
    }

    /** Measuring ranges for setRange. */
    enum Range {
      RANGE_2G = 0,
      RANGE_4G = 1,
      RANGE_8G = 2,
      RANGE_16G = 3,
    }

    /**
     * Motion events for onMotion.
     * @since 0.2.6
     */
    enum MotionEvent {
      GENERIC = 0,
      FREE_FALL = 1,
      SINGLE_TAP = 2,
      DOUBLE_TAP = 3,
      TILT = 4,
      STEP = 5,
      ORIENTATION = 6,
      WAKE_UP = 7,
      /** Events of the machine learning core. */
      MLC = 8,
    }
  }

  /**
   * The accelerometer of 0.0.9, renamed sensors.imu in 0.1.5 (same natives).
   * @until 0.0.9
   */
  namespace accel {
    /**
     * Acceleration in g; all zeros on hardware without the sensor.
     * @native rt_sensors_imu_getAccel
     */
    function get(): AccelVector;
    /**
     * Sets the motion sensitivity, 0 (lowest) to 4 (highest).
     * @native rt_sensors_imu_setSens
     */
    function setSens(level: Int<0, 4>): void;
    /**
     * Sets the motion responsiveness, 0 (lowest) to 4 (highest).
     * @native rt_sensors_imu_setResp
     */
    function setResp(level: Int<0, 4>): void;
    /**
     * Calls callback with true when the device starts moving and false when it stops; null
     * unregisters.
     * @native rt_sensors_imu_onMotion
     */
    function onMotion(callback: ((motion: boolean) => void) | null): void;
  }

  namespace battery {
    /** Battery voltage, V. */
    function getVoltage(): number;
    /** Whether external power is available. */
    function isExtPower(): boolean;
    /** Whether the battery is charging; false with external power when the battery is full. */
    function isCharging(): boolean;
    /** Energy left, %. */
    function getPerc(): number;
    /**
     * Battery capacity, mAh; accurate only after a full charge and discharge cycle.
     * @since 0.2.6
     */
    function getCapacity(): number;
    /**
     * Average current, mA; negative while charging. Takes up to a minute to settle.
     * @since 0.2.6
     */
    function getAvgCurrent(): number;
    /**
     * Calls callback when external power or charging changes (and, from 0.2.6, at once with the
     * current state). A new registration replaces the old one; null clears it.
     */
    function setPowerListener(callback: ((externalPower: boolean, charging: boolean) => void) | null): void;
  }

  namespace temp {
    /** Temperature, °C; raised while charging or after heavy modem use. */
    function get(): number;
    /**
     * With enabled true, measures at shorter intervals.
     * @until 0.1.5
     */
    function setFastMode(enabled: boolean): void;
    /**
     * With enabled true, measures at shorter intervals.
     * @since 0.2.6
     * @default enabled true
     */
    function setFastMode(enabled?: boolean): void;
  }
}

/** Acceleration, g. */
interface AccelVector {
  x: number;
  y: number;
  z: number;
}

/** Rotation, deg/s. */
interface RotationVector {
  x: number;
  y: number;
  z: number;
}

/** How the device lies; a field is absent when it cannot be told. */
interface Orientation {
  /** 'flat' or 'vertical'. */
  orient?: string;
  /** The side facing up: 'top', 'bottom', 'ble', 'gnss' or 'cloud'. */
  side?: string;
}

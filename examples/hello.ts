// The smallest micro-app: say hello with what the device knows about itself.
const [major, minor, patch] = sys.getFirmware();
print(`Hello from ${sys.getHardware()} ${sys.getPublicId().slice(0, 8)}, API ${major}.${minor}.${patch}`);

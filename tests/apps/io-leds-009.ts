// run: --api 0.0.9
// io in 0.0.9: the io.Led values are 0 to 2 and, like the segment numbers they share, address
// the ring's three segments (one LED each on the default device); colours are arrays only.
print(`LTE ${io.Led.LTE}, GPS ${io.Led.GPS}, BLE ${io.Led.BLE}`);
io.setLedColor(io.Led.GPS, io.Color.MAGENTA);
io.led(io.Led.GPS, true);
io.setLedBrightness(0.1);

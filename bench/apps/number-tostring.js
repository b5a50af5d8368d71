// 2,000 fractional numbers written as text (String(x): the engine's number-to-digits).
var seed = 1, out = 0;
for (var i = 0; i < 2000; i++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  out += String((seed - 1073741824) / 997).length;
}
print('chars ' + out);

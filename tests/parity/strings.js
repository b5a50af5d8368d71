// Strings with non-BMP text, case mapping, trimming, URI coding, and ES5 regular expressions.
var s = 'a\ud83d\ude00b\u00e9\u0301';
print(s.length + ' ' + s.charAt(1).length + ' ' + s.charCodeAt(1) + ' ' + s.charCodeAt(2) + ' ' + s.substring(1, 3) + ' ' + s.slice(-3) + ' ' + s.split('').length + ' ' + s.indexOf('b') + ' ' + s.toUpperCase() + ' ' + encodeURIComponent(s));
var lit = '😀x'; print(lit.length + ' ' + lit.charCodeAt(0) + ' ' + lit.charCodeAt(1) + ' ' + (lit === '\ud83d\ude00x'));
print(String.fromCharCode(0xd83d, 0xde00, 65) + ' ' + String.fromCharCode(0x1f600).charCodeAt(0) + ' ' + String.fromCharCode(-1).charCodeAt(0));
print('ß'.toUpperCase() + ' ' + 'İ'.toLowerCase().length + ' ' + 'Σ'.toLowerCase() + ' ' + 'ﬁ'.toUpperCase() + ' ' + 'ÉCOLE'.toLowerCase());
print('  \t\n\u00a0\ufeff\u2028x \u3000'.trim().length + ' ' + '\u200bx'.trim().length);
try { decodeURIComponent('%'); } catch (e) { print(e.name); }
try { encodeURIComponent('\ud800'); } catch (e) { print(e.name); }
print(escape('ä\ud83d\ude00 +') + ' ' + unescape('%u00e4%41') + ' ' + decodeURI('%F0%9F%98%80').length + ' ' + encodeURI('\ud83d\ude00'));
print('x'.concat(1, null) + ' ' + 'abc'.substr(-2, 1) + ' ' + 'abcabc'.lastIndexOf('c', -5) + ' ' + 'a,b,,c'.split(',', 3) + ' ' + 'abc'.split(/(b)/) + ' ' + ''.split('').length + ' ' + 'ab'.split(/(?:)/).length);
print(/\s/.test('\ufeff') + ' ' + /\w/i.test('\u017f') + ' ' + /[a-z]/i.test('\u212a') + ' ' + 'aBc'.replace(/b/i, '[$&$`$\'$$]') + ' ' + 'abcabc'.replace(/(b)(c)?/g, '$2$1$3$01$10'));
print(JSON.stringify('aaa'.match(/a*?/g)) + ' ' + JSON.stringify('abcb'.replace(/(?=b)/g, '-')) + ' ' + JSON.stringify(/(a)|(b)/.exec('b')) + ' ' + JSON.stringify('abc'.split(/(?:)/)));
var re = /a/g; re.lastIndex = 5; print(re.test('aaaa') + ' ' + re.lastIndex + ' ' + String(/[/]\//) + ' ' + String(new RegExp('/')) + ' ' + String(new RegExp('')));
print(/(\d+)-\1/.test('12-12') + ' ' + /^.$/.test('\ud83d\ude00') + ' ' + /^..$/.test('\ud83d\ude00') + ' ' + /[^]/.test('\n') + ' ' + /a{2,}?/.exec('aaaa')[0] + ' ' + /(?!a)\w/.exec('ab')[0] + ' ' + /\bfoo\b/.test('a foo.'));
print(/\cA/.test('\u0001') + ' ' + /[\b]/.test('\b') + ' ' + /\0/.test('\0') + ' ' + /a|ab/.exec('abc')[0] + ' ' + /((a)|b)+/.exec('ab') + ' ' + /(z)((a+)?(b+)?(c))*/.exec('zaacbbbcac'));
try { new RegExp('('); } catch (e) { print(e.name); }
var r2 = /x/gim; print(r2.source + r2.global + r2.ignoreCase + r2.multiline + ' ' + Object.keys(r2).length + ' ' + /^b/m.test('a\nb') + ' ' + /a.c/.test('a\nc'));

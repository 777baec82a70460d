// Timeline.RowsAreReadByNameWithoutABrowser: the history timeline's row reader
// (src/report/assets/timeline_rows.js), run by node on a page duet wrote, must find in each
// operation's row what the history and the report say about it (ROWS.json, written by
// make_timeline --rows from them, not from the page's writer).
// usage: node rows_test.js TIMELINE_ROWS_JS PAGE.html ROWS.json
'use strict';
const fs = require('fs');
const [reader, pagePath, rowsPath] = process.argv.slice(2);
const duetRows = require(reader);
const page = fs.readFileSync(pagePath, 'utf8');
const block = page.match(/<script type="application\/json" id="duet-data">([\s\S]*?)<\/script>/);
if (!block) { console.log('FAILED: no data block in ' + pagePath); process.exit(1); }
const D = JSON.parse(block[1]);
const expected = JSON.parse(fs.readFileSync(rowsPath, 'utf8'));
const rows = duetRows(D);
let failures = 0;
function check(ok, what) {
  if (ok) return;
  failures++;
  if (failures <= 20) console.log('FAILED: ' + what);
}
check(D.n === expected.length, 'rows ' + D.n + ', operations ' + expected.length);
const declared = Object.keys(D.fl).reduce(function (bits, name) { return bits | D.fl[name]; }, 0);
const seen = new Set();
for (let i = 0; i < D.n; i++) {
  const r = rows.row(i), e = expected[r.op];
  if (!e) { check(false, 'row ' + i + ': operation ' + r.op + ' unknown'); continue; }
  seen.add(r.op);
  const at = 'operation ' + r.op + ': ';
  for (const name of ['invoke_line', 'response_line', 'position'])
    check(r[name] === e[name], at + name + ' ' + r[name] + ', expected ' + e[name]);
  for (const name of ['invoke_time', 'response_time'])
    check(String(r[name]) === e[name], at + name + ' ' + r[name] + ', expected ' + e[name]);
  check(r.start <= r.end && r.end <= D.r, at + 'bar ' + r.start + '..' + r.end + ' of ' + D.r);
  check(typeof D.s[r.label] === 'string', at + 'label ' + r.label + ' not in the string table');
  check((r.flags & ~declared) === 0, at + 'flags ' + r.flags + ' beyond the declared ' + declared);
  for (const name of ['fail', 'info', 'unknown_result', 'stuck'])
    check(((r.flags & D.fl[name]) !== 0) === e.flags.includes(name), at + 'flag ' + name);
  check(r.flags === f(i, 'flags'), at + 'row() and F disagree');
}
function f(i, name) { return D.o[i * rows.W + rows.F[name]]; }
check(seen.size === expected.length, seen.size + ' distinct operations of ' + expected.length);
if (failures) { console.log(failures + ' failures'); process.exit(1); }
console.log('ok: ' + D.n + ' rows read by name (' + D.f.join(', ') + ')');

// The history timeline's data rows, read by the names the data block declares (report/
// timeline_rows.hpp writes them): "f", the fields of each operation's row in "o", in order; "fl",
// the flag bits. F.start is the index of the start field in a row, FL.stuck the stuck flag's bit,
// row(i) operation i's row as an object (what the test without a browser compares).
function duetRows(D) {
  var F = {}, W = D.f.length;
  D.f.forEach(function (name, k) { F[name] = k; });
  function row(i) {
    var r = {};
    D.f.forEach(function (name, k) { r[name] = D.o[i * W + k]; });
    return r;
  }
  return { F: F, FL: D.fl, W: W, row: row };
}
if (typeof module !== 'undefined') module.exports = duetRows;

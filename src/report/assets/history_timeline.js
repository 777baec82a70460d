// The history timeline's script (report/timeline.cpp): draws the bars from the page's data block,
// read by field name through duetRows (timeline_rows.js); user text only ever goes through
// textContent. Only the bars near the visible part of the time axis are in the DOM (chunks of
// ranks, mounted on scroll), so a page with 100k operations opens as fast as one with 100.
(function () {
'use strict';
var D = JSON.parse(document.getElementById('duet-data').textContent);
var RS = duetRows(D), F = RS.F, FL = RS.FL, W = RS.W, O = D.o, S = D.s, n = D.n, R = D.r, LH = 44, MY = 10 / LH, C = 128;
var sc = document.getElementById('sc'), cv = document.getElementById('cv');
var names = document.getElementById('names'), tip = document.getElementById('tip');
var panel = document.getElementById('panel'), zoom = document.getElementById('zoom');
function f(i, x) { return O[i * W + x]; }
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
// Lanes: one per process, as many rows as its overlapping operations need.
var procOfRow = [], frag = document.createDocumentFragment();
for (var k = 0, alt = 0; k < D.p.length; k += 3, alt ^= 1) {
  var nm = el('div', 'pname', 'process ' + D.p[k]);
  nm.style.height = (LH * D.p[k + 2]) + 'px';
  nm.title = 'process ' + D.p[k];
  names.appendChild(nm);
  var ln = el('div', 'lane' + (alt ? ' alt' : ''));
  ln.style.cssText = '--l:' + D.p[k + 1] + ';--n:' + D.p[k + 2];
  frag.appendChild(ln);
  for (var j = 0; j < D.p[k + 2]; j++) procOfRow[D.p[k + 1] + j] = D.p[k];
}
cv.appendChild(frag);
cv.style.height = (D.rows * LH) + 'px';
// The linearization order and its points: the earliest place inside each bar that keeps the
// points increasing, which a valid linearization always allows.
var ordered = [], rankInOrder = [], pt = [], stuckRow = -1;
for (var i = 0; i < n; i++) {
  if (f(i, F.position)) ordered.push(i);
  if (f(i, F.flags) & FL.stuck) stuckRow = i;
}
ordered.sort(function (a, b) { return f(a, F.position) - f(b, F.position); });
var prev = -1e9;
ordered.forEach(function (i, k) {
  var lo = f(i, F.start) + 0.5, hi = lo + Math.max(f(i, F.end) - f(i, F.start), 0.6);
  var x = Math.min(Math.max(prev + 0.2, lo + 0.35), hi - 0.15);
  if (x < lo) x = (lo + hi) / 2;
  prev = pt[i] = x;
  rankInOrder[i] = k;
});
// Chunks of the time axis: a bar is listed in every chunk it crosses, very long ones
// (indeterminate operations reach the end) are always mounted.
var chunks = [], always = [];
for (i = 0; i < n; i++) {
  var a = Math.floor(f(i, F.start) / C), b = Math.floor(f(i, F.end) / C);
  if (b - a > 8) { always.push(i); continue; }
  for (var c = a; c <= b; c++) (chunks[c] || (chunks[c] = [])).push(i);
}
var bars = [], marks = [], on = new Uint8Array(n), mountedList = [];
function build(i) {
  var fl = f(i, F.flags), cls = 'bar';
  if (f(i, F.position)) cls += ' lin';
  if (fl & FL.fail) cls += ' fail';
  if (fl & FL.info) cls += ' info';
  if (fl & FL.stuck) cls += ' stuck';
  if (fl & FL.other_partition) cls += ' other';
  if (fl & FL.witness) cls += ' wit';
  var b = el('div', cls, S[f(i, F.label)]);
  b.style.cssText = '--l:' + f(i, F.lane) + ';--s:' + (f(i, F.start) + 0.5) + ';--w:' + Math.max(f(i, F.end) - f(i, F.start), 0.6);
  b.dataset.i = i;
  bars[i] = b;
  var m = null;
  if (f(i, F.position)) {
    m = el('div', 'mk', String(f(i, F.position)));
    m.style.cssText = '--x:' + pt[i] + ';--l:' + f(i, F.lane);
  } else if (fl & FL.stuck) {
    m = el('div', 'mk stk', '\u2715 stuck');
    m.style.cssText = '--x:' + (f(i, F.start) + 0.5) + ';--l:' + f(i, F.lane);
  }
  if (m) { m.dataset.i = i; marks[i] = m; }
}
function seg(a, b) {
  var xa = a === stuckRow ? f(a, F.start) + 0.5 : pt[a], xb = b === stuckRow ? f(b, F.start) + 0.5 : pt[b];
  return 'M' + xa.toFixed(2) + ' ' + (f(a, F.lane) + MY).toFixed(3) + 'L' + xb.toFixed(2) + ' ' + (f(b, F.lane) + MY).toFixed(3);
}
var links = null;
function drawLinks() {
  var solid = '', dashed = '', stuck = '';
  mountedList.forEach(function (i) {
    var k = rankInOrder[i];
    if (k === undefined) return;
    if (k + 1 < ordered.length) {
      var nx = ordered[k + 1];
      if (f(nx, F.position) === f(i, F.position) + 1) solid += seg(i, nx); else dashed += seg(i, nx);
    }
    if (k > 0 && !on[ordered[k - 1]]) {
      var pv = ordered[k - 1];
      if (f(i, F.position) === f(pv, F.position) + 1) solid += seg(pv, i); else dashed += seg(pv, i);
    }
  });
  // "This could not come next": the last placed operation to the stuck one.
  var last = ordered[ordered.length - 1];
  if (stuckRow >= 0 && last !== undefined && f(last, F.position) === D.L && (on[last] || on[stuckRow])) stuck = seg(last, stuckRow);
  var path = function (cls, d) { return d ? '<path class="' + cls + '" vector-effect="non-scaling-stroke" d="' + d + '"></path>' : ''; };
  var box = el('div');
  box.innerHTML = '<svg class="links" viewBox="0 0 ' + (R + 1) + ' ' + Math.max(D.rows, 1) + '" preserveAspectRatio="none">' +
    path('', solid) + path('gap', dashed) + path('stk', stuck) + '</svg>';
  if (links) cv.removeChild(links);
  links = box.firstChild;
  cv.appendChild(links);
}
function unit() { return parseFloat(cv.style.getPropertyValue('--u')) || 16; }
var va = -1, vb = -1;
function view(force) {
  var u = unit(), left = sc.scrollLeft / u, right = (sc.scrollLeft + sc.clientWidth) / u;
  var a = Math.max(0, Math.floor(left / C) - 1), b = Math.floor(right / C) + 1;
  if (!force && a === va && b === vb) return;
  va = a; vb = b;
  var want = new Uint8Array(n), list = always.slice();
  for (var c = a; c <= b; c++) if (chunks[c]) list = list.concat(chunks[c]);
  list.forEach(function (i) { want[i] = 1; });
  mountedList.forEach(function (i) {
    if (want[i]) return;
    cv.removeChild(bars[i]);
    if (marks[i]) cv.removeChild(marks[i]);
    on[i] = 0;
  });
  var add = document.createDocumentFragment(), next = [];
  for (var i = 0; i < n; i++) {
    if (!want[i]) continue;
    next.push(i);
    if (on[i]) continue;
    if (!bars[i]) build(i);
    add.appendChild(bars[i]);
    if (marks[i]) add.appendChild(marks[i]);
    on[i] = 1;
  }
  cv.appendChild(add);
  mountedList = next;
  drawLinks();
  highlight();
  document.body.setAttribute('data-mounted', String(next.length));
}

function tm(t) { return 't=' + t; }
function describe(i) {
  var fl = f(i, F.flags), out = [];
  out.push(['h', S[f(i, F.label)]]);
  out.push(['', 'operation #' + f(i, F.op) + ' \u00b7 process ' + procOfRow[f(i, F.lane)]]);
  var inv = 'invoked ' + tm(f(i, F.invoke_time)) + (f(i, F.invoke_line) ? ' (line ' + f(i, F.invoke_line) + ')' : '');
  if (fl & FL.info) out.push(['', inv + ', never completed']);
  else out.push(['', inv + ', completed ' + tm(f(i, F.response_time)) + (f(i, F.response_line) ? ' (line ' + f(i, F.response_line) + ')' : '')]);
  if (fl & FL.info) out.push(['', 'indeterminate (:info): may take effect at any point after its invocation, or never']);
  else if (fl & FL.fail) out.push(['', (fl & FL.unknown_result) ? 'failed: completed, result unknown' : 'failed (:fail)']);
  else if (fl & FL.unknown_result) out.push(['', 'completed, result unknown']);
  if (f(i, F.position)) {
    out.push(['', 'linearized ' + f(i, F.position) + ' of ' + D.L]);
    if (f(i, F.state)) out.push(['', 'state after: ' + S[f(i, F.state) - 1]]);
  } else if (fl & FL.stuck) {
    out.push(['st', 'STUCK: cannot be linearized after the ' + D.L + ' operations of the order']);
    out.push(['st', 'state there: ' + D.ss]);
  } else {
    out.push(['', D.v === 'linearizable' ? 'not in the linearization (never took effect)' : 'not placed in the linearization']);
  }
  if (fl & FL.witness) out.push(['st', D.fw ? 'in the failing window: these operations alone have no linearization either'
                                    : 'in the witness: these operations alone have no linearization']);
  if (fl & FL.witness_open) out.push(['st', 'open in the window (running where it is cut): took effect with its result, or not at all']);
  return out;
}
function fill(box, lines) {
  box.textContent = '';
  lines.forEach(function (l) { box.appendChild(el('div', l[0], l[1])); });
}
function target(e) {
  var t = e.target;
  while (t && t !== cv) { if (t.dataset && t.dataset.i !== undefined) return +t.dataset.i; t = t.parentNode; }
  return -1;
}
cv.addEventListener('mousemove', function (e) {
  var i = target(e);
  if (i < 0) { tip.hidden = true; return; }
  if (tip.dataset.i !== String(i)) { fill(tip, describe(i)); tip.dataset.i = i; }
  tip.hidden = false;
  var x = e.clientX + 14, y = e.clientY + 16, w = tip.offsetWidth, h = tip.offsetHeight;
  if (x + w > window.innerWidth - 8) x = Math.max(8, e.clientX - w - 14);
  if (y + h > window.innerHeight - 8) y = Math.max(8, e.clientY - h - 16);
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
});
cv.addEventListener('mouseleave', function () { tip.hidden = true; });
// Selection: the operation, its marker, and its neighbours in the order.
var selected = -1;
function highlight() {
  cv.querySelectorAll('.sel,.nb').forEach(function (e) { e.classList.remove('sel', 'nb'); });
  if (selected < 0) return;
  if (on[selected]) { bars[selected].classList.add('sel'); if (marks[selected]) marks[selected].classList.add('sel'); }
  var k = rankInOrder[selected];
  if (k === undefined) return;
  [ordered[k - 1], ordered[k + 1]].forEach(function (j) { if (j !== undefined && on[j]) bars[j].classList.add('nb'); });
}
function reveal(i) {
  var u = unit(), x = (pt[i] !== undefined ? pt[i] : f(i, F.start) + 0.5) * u;
  if (x < sc.scrollLeft + 40 || x > sc.scrollLeft + sc.clientWidth - 40) sc.scrollLeft = x - sc.clientWidth / 2;
  view();
  var top = cv.getBoundingClientRect().top + f(i, F.lane) * LH;
  if (top < 0 || top + LH > window.innerHeight) window.scrollBy(0, top - window.innerHeight / 2);
}
function select(i, scroll) {
  selected = i;
  if (i < 0) {
    highlight();
    fill(panel, [['', n ? 'Click an operation for its details; \u2190 \u2192 step through the linearization order, Esc clears.' : 'No operations to draw.']]);
    return;
  }
  if (scroll) reveal(i);
  highlight();
  var k = rankInOrder[i];
  panel.textContent = '';
  var nav = el('div', 'nav');
  var p = el('button', '', '\u2190 previous in order'), q = el('button', '', 'next in order \u2192');
  p.disabled = !(k > 0) && !(i === stuckRow && ordered.length); q.disabled = k === undefined || k + 1 >= ordered.length;
  p.onclick = function () { step(-1); }; q.onclick = function () { step(1); };
  nav.appendChild(p); nav.appendChild(q); panel.appendChild(nav);
  describe(i).forEach(function (l, x) { panel.appendChild(el(x === 0 ? 'b' : 'div', l[0], l[1])); });
}
function step(d) {
  var k = selected < 0 ? undefined : rankInOrder[selected];
  // From the stuck operation back to the last one placed before it.
  if (selected >= 0 && selected === stuckRow && d < 0 && ordered.length) { select(ordered[ordered.length - 1], true); return; }
  if (k === undefined) { if (ordered.length) select(ordered[d > 0 ? 0 : ordered.length - 1], true); return; }
  k += d;
  if (k >= 0 && k < ordered.length) select(ordered[k], true);
}
cv.addEventListener('click', function (e) { select(target(e), false); });
document.addEventListener('keydown', function (e) {
  if (e.key === 'ArrowRight') { step(1); e.preventDefault(); }
  else if (e.key === 'ArrowLeft') { step(-1); e.preventDefault(); }
  else if (e.key === 'Escape') select(-1);
});
// Zoom: pixels per event rank, kept under the browsers' limit on an element's width.
var maxUnit = Math.max(2, Math.min(200, 3e7 / (R + 1)));
zoom.max = Math.floor(maxUnit);
function setUnit(u, anchor) {
  u = Math.max(1, Math.min(maxUnit, u));
  var old = unit(), ax = anchor === undefined ? sc.clientWidth / 2 : anchor, at = (sc.scrollLeft + ax) / old;
  cv.style.setProperty('--u', u + 'px');
  cv.style.width = ((R + 1) * u) + 'px';
  zoom.value = u;
  sc.scrollLeft = at * u - ax;
  view(true);
}
zoom.addEventListener('input', function () { setUnit(+zoom.value); });
sc.addEventListener('wheel', function (e) {
  if (!e.ctrlKey) return;
  e.preventDefault();
  setUnit(unit() * (e.deltaY < 0 ? 1.15 : 1 / 1.15), e.clientX - sc.getBoundingClientRect().left);
}, { passive: false });
var pending = false;
sc.addEventListener('scroll', function () {
  if (pending) return;
  pending = true;
  requestAnimationFrame(function () { pending = false; view(); });
});
window.addEventListener('resize', function () { view(); });
document.getElementById('fit').onclick = function () { setUnit(sc.clientWidth / (R + 1)); };
var gs = document.getElementById('gostuck');
if (stuckRow >= 0) gs.onclick = function () { select(stuckRow, true); }; else gs.hidden = true;
// Initial zoom: the whole history if its bars are then wide enough to read, else about 90px for
// a typical bar.
var spans = [];
for (i = 0; i < n; i++) spans.push(Math.max(f(i, F.end) - f(i, F.start), 0.6));
spans.sort(function (a, b) { return a - b; });
var typical = spans.length ? spans[spans.length >> 1] : 1, fit = sc.clientWidth / (R + 1);
cv.style.setProperty('--u', '16px');
setUnit(fit * typical >= 70 ? Math.min(fit, 120) : Math.min(Math.max(90 / typical, fit), 60));
if (stuckRow >= 0) sc.scrollLeft = (f(stuckRow, F.start) + 0.5) * unit() - sc.clientWidth / 3;
view(true);
select(-1);
document.body.setAttribute('data-rendered', String(n));
})();

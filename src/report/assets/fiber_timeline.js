// The fiber timeline's script: shows a clicked mark's or bar's text (its title) in the panel, steps
// through the marks with the arrow keys, zooms. Text only ever goes through textContent.
(function () {
'use strict';
var cv = document.getElementById('cv'), panel = document.getElementById('panel'), zoom = document.getElementById('zoom');
var cols = +cv.getAttribute('data-cols'), marks = cv.querySelectorAll('.fs'), selected = null;
function show(e) {
  if (selected) selected.classList.remove('sel');
  selected = e;
  panel.textContent = '';
  if (!e) { panel.textContent = 'Click a step or a call for its full text; \u2190 \u2192 step through the schedule, Esc clears.'; return; }
  e.classList.add('sel');
  e.title.split('\n').forEach(function (line, k) {
    var d = document.createElement(k ? 'div' : 'b');
    d.textContent = line;
    panel.appendChild(d);
  });
}
cv.addEventListener('click', function (ev) {
  var t = ev.target;
  while (t && t !== cv && !t.title) t = t.parentNode;
  show(t && t !== cv ? t : null);
});
document.addEventListener('keydown', function (ev) {
  var k = Array.prototype.indexOf.call(marks, selected);
  if (ev.key === 'Escape') show(null);
  else if (ev.key === 'ArrowRight' && k + 1 < marks.length) show(marks[k + 1]);
  else if (ev.key === 'ArrowLeft' && k > 0) show(marks[k - 1]);
  else return;
  if (selected) selected.scrollIntoView({ block: 'nearest', inline: 'center' });
  ev.preventDefault();
});
zoom.addEventListener('input', function () {
  cv.style.setProperty('--u', zoom.value + 'px');
  cv.style.width = (cols * zoom.value + 8) + 'px';
});
show(null);
document.body.setAttribute('data-rendered', String(marks.length));
})();

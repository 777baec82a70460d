#!/bin/sh
# Timeline.OpensInHeadlessBrowser: opens the timeline page of a crafted history in headless
# Chromium and checks that its script ran (data-rendered = number of bars), that hostile
# strings stayed text, and that a screenshot can be taken (kept in OUT_DIR).
# usage: browser_test.sh MAKE_TIMELINE OUT_DIR      exit 77 = skipped (no browser)
set -u
make_timeline=$1
out=$2

browser=
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
  echo "SKIPPED: no headless browser (install Debian's chromium: apt-get install chromium)"
  exit 77
fi
echo "browser: $browser"

fail() { echo "FAILED: $*"; exit 1; }

# A time limit per browser run: a wedged browser must fail the test, not hang it.
if command -v timeout >/dev/null 2>&1; then limit="timeout 60"; else limit=; fi

mkdir -p "$out" || fail "cannot create $out"
page="$out/timeline.html"
hostile="$out/timeline_hostile.html"
png="$out/timeline.png"
profile="$out/chromium-profile"
rm -f "$png"

bars=$("$make_timeline" "$page" "$hostile" | sed -n 's/^bars=//p')
[ -n "$bars" ] || fail "make_timeline did not report its bar count"
echo "page: $page ($(wc -c < "$page") bytes, $bars operations)"

run_browser() {
  # shellcheck disable=SC2086
  $limit "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --no-default-browser-check --user-data-dir="$profile" "$@" 2>"$out/browser.log"
}

run_browser --dump-dom "file://$page" > "$out/timeline.dom.html" || { cat "$out/browser.log"; fail "browser failed on $page"; }
grep -q "data-rendered=\"$bars\"" "$out/timeline.dom.html" ||
  fail "the page's script did not draw $bars bars (no data-rendered=\"$bars\" in $out/timeline.dom.html)"
count=$(grep -o 'class="bar[ "]' "$out/timeline.dom.html" | wc -l)
[ "$count" -eq "$bars" ] || fail "$count bar elements in the DOM, expected $bars"
grep -q 'class="bar[^"]*stuck' "$out/timeline.dom.html" || fail "no stuck bar in the DOM"
grep -q 'class="mk"' "$out/timeline.dom.html" || fail "no linearization markers in the DOM"
echo "dom: data-rendered=\"$bars\", $count bars, stuck bar and order markers present"

run_browser --dump-dom "file://$hostile" > "$out/timeline_hostile.dom.html" || { cat "$out/browser.log"; fail "browser failed on $hostile"; }
grep -q "data-rendered=\"$bars\"" "$out/timeline_hostile.dom.html" || fail "hostile strings broke the page's script"
if grep -q -e '<img' -e 'id="pwned"' -e '<title>pwned' "$out/timeline_hostile.dom.html"; then
  fail "markup from the history was interpreted (see $out/timeline_hostile.dom.html)"
fi
echo "dom: hostile strings stayed text"

# Interaction: the same page with a script appended that clicks the stuck bar, steps back
# through the order with the keyboard and hovers a bar, reporting in data-interaction.
interact="$out/timeline_interact.html"
sed '$d' "$page" > "$interact"
cat >> "$interact" <<'JS'
<script>
(function () {
  var cv = document.getElementById('cv'), panel = document.getElementById('panel'), problems = [];
  var stuck = cv.querySelector('.bar.stuck');
  if (!stuck) problems.push('no-stuck-bar');
  else {
    stuck.click();
    if (!stuck.classList.contains('sel')) problems.push('click-does-not-select');
    if (panel.textContent.indexOf('STUCK') < 0) problems.push('panel-does-not-say-stuck');
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    var sel = cv.querySelector('.bar.sel');
    if (!sel || !sel.classList.contains('lin')) problems.push('arrow-does-not-step-to-the-order');
    if (!cv.querySelector('.mk.sel')) problems.push('order-marker-not-highlighted');
    var r = stuck.getBoundingClientRect();
    stuck.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.left + 5, clientY: r.top + 5 }));
    var tip = document.getElementById('tip');
    if (tip.hidden || tip.textContent.indexOf('state there') < 0) problems.push('no-tooltip');
  }
  document.body.setAttribute('data-interaction', problems.length ? problems.join(',') : 'ok');
})();
</script>
</body></html>
JS
run_browser --dump-dom "file://$interact" > "$out/timeline_interact.dom.html" || { cat "$out/browser.log"; fail "browser failed on $interact"; }
grep -q 'data-interaction="ok"' "$out/timeline_interact.dom.html" ||
  fail "interaction: $(grep -o 'data-interaction="[^"]*"' "$out/timeline_interact.dom.html" || echo 'the check did not run')"
echo "interaction: click selects, arrow keys step through the order, hover shows the tooltip"

run_browser --hide-scrollbars --window-size=1400,900 --screenshot="$png" "file://$page" > /dev/null ||
  { cat "$out/browser.log"; fail "screenshot failed"; }
[ -f "$png" ] || fail "no screenshot at $png"
signature=$(od -An -tx1 -N8 "$png" | tr -d ' \n')
[ "$signature" = "89504e470d0a1a0a" ] || fail "$png is not a PNG (starts with $signature)"
size=$(wc -c < "$png")
[ "$size" -gt 20000 ] || fail "$png is only $size bytes: a blank page?"
echo "screenshot: $png ($size bytes)"
echo "PASSED"

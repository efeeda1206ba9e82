#!/usr/bin/env bash
# tools/report.py: one run's outputs as one self-contained HTML page (the
# verdict, what ran and where, the results as tables, every plot embedded),
# a failed run reported as failed, bad input refused; and the page as
# headless Chromium renders it (skipped, visibly, where chromium is missing;
# make deps installs it).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=$ROOT/tools/report.py

"${MPIRUN[@]}" -np 2 "$SHIFTBOX" pingpong -s pingpong.bytes=0,100,10000 -s pingpong.trials=3 \
    -s pingpong.warmup=1 -s pingpong.loop_seconds=0.01 -s timer.samples=1000 \
    --out "$TEST_TMP/pp" >/dev/null 2>&1
expect "an exchange sweep with predictions: its page, plots drawn and embedded" 0 'report: .*report.html' -- \
    bash -c "mpirun --oversubscribe -np 2 '$SHIFTBOX' exchange -s exchange.module=all -s exchange.k=1,2 \
        -s exchange.bytes=100,10000 -s exchange.repetitions=5 -s timer.samples=1000 \
        -s model.hockney='$TEST_TMP/pp/hockney.json' --out '$TEST_TMP/ex' >/dev/null 2>&1 && \
        $PY '$REPORT' '$TEST_TMP/ex'"
expect "... the page: verdict, placement, every point, three plots inline" 0 -- \
    $PY - "$TEST_TMP/ex" <<'PYEOF'
import json, re, sys
d = sys.argv[1]
page = open(f"{d}/report.html").read()
s = json.load(open(f"{d}/summary.json"))
assert '<span class="pass">verified: true</span>' in page
assert "vm: 0-1" in page or "placement" in page
points = page.split("<h2>Points</h2>")[1].split("<h2>")[0]
rows = re.findall(r"<tr><td class=\"l\">(shift|shift-isend|teamshift|direct)</td>", points)
assert len(rows) == len(s["points"]) == 16, (len(rows), len(s["points"]))
pictures = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', page)
assert sorted(pictures) == ["model-2x1x1-c1-uniform.png", "ratio-2x1x1-c1-uniform.png",
                            "time-2x1x1-c1-uniform.png"], pictures
assert "<h2>exchange.csv</h2>" in page and "<h2>Configuration</h2>" in page
PYEOF
expect "a run that failed its check is reported as failed" 0 -- \
    bash -c "mpirun --oversubscribe -np 2 '$SHIFTBOX' exchange -s exchange.module=shift -s exchange.k=1 \
        -s exchange.bytes=100 -s exchange.repetitions=2 -s exchange.inject_fault=1 \
        -s timer.samples=1000 --out '$TEST_TMP/bad' >/dev/null 2>&1; \
        $PY '$REPORT' '$TEST_TMP/bad' >/dev/null && grep -q 'class=\"fail\">verified: false' '$TEST_TMP/bad/report.html'"
expect "md's page: its results as a table" 0 'report: ' -- \
    bash -c "mpirun --oversubscribe -np 2 '$SHIFTBOX' md -s md.steps=20 -s md.cells=8,8,8 -s timer.samples=1000 \
        --out '$TEST_TMP/md' >/dev/null 2>&1 && $PY '$REPORT' '$TEST_TMP/md' && \
        grep -q '<td class=\"l\">md.energy_drift</td>' '$TEST_TMP/md/report.html' && \
        grep -q '<h2>md-thermo.csv</h2>' '$TEST_TMP/md/report.html'"
mkdir -p "$TEST_TMP/empty"
expect "a folder without summary.json is refused, nothing written" 2 'accepted: a folder written by shiftbox' -- \
    $PY "$REPORT" "$TEST_TMP/empty"
if [[ -e $TEST_TMP/empty/report.html ]]; then fail "... report.html appeared"; else pass "... no report.html"; fi

# ---- as a browser shows it ----------------------------------------------------------------
if ! command -v chromium >/dev/null; then
    skip "the page in headless Chromium" "chromium missing (make deps installs it)"
else
    shot() { # HTML PNG
        timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --window-size=1280,2400 --screenshot="$2" "file://$1" >/dev/null 2>&1
        $PY - "$2" <<'PYEOF'
import sys
import matplotlib.image as mpimg
img = mpimg.imread(sys.argv[1])[:, :, :3]
ink = (img.sum(axis=2) < 2.7).mean()  # share of pixels that are not white
print(f"{ink:.1%} of the screenshot is not white")
sys.exit(0 if ink > 0.05 else 1)
PYEOF
    }
    expect "headless Chromium renders the page: text, tables and plots, not a blank page" 0 \
        'of the screenshot is not white' -- shot "$TEST_TMP/ex/report.html" "$TEST_TMP/ex/shot.png"
    echo '<!DOCTYPE html><html><body></body></html>' >"$TEST_TMP/blank.html"
    expect "... and the same check fails on a blank page" 1 -- shot "$TEST_TMP/blank.html" "$TEST_TMP/blank.png"
fi

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]

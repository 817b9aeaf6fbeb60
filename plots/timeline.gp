# plots/timeline.gp: a `gpusim predict --trace` timeline as a picture: one row per GPU stream and link of each
# stage's traced GPU, time in ms across, a colour per category, forward and backward passes labelled with their
# micro-batch. Perfetto (ui.perfetto.dev) shows the same trace interactively; this is for documents.
# Run from the repository root:
#   build/gpusim predict tests/golden/tp4_pp2_dp2_interleaved.yaml --trace build/timeline.json
#   scripts/trace2dat build/timeline.json > build/timeline.dat
#   gnuplot -e "dat='build/timeline.dat'; out='docs/img/timeline-tp4_pp2_dp2_interleaved.png'" plots/timeline.gp
# Variables (-e): dat (from scripts/trace2dat), out (PNG), width and height (pixels).
if (!exists("dat")) dat = "timeline.dat"
if (!exists("out")) out = "timeline.png"
if (!exists("width")) width = 1600
if (!exists("height")) height = 560

title = system(sprintf("sed -n 's/^# title: //p' '%s'", dat))
subtitle = system(sprintf("sed -n 's/^# subtitle: //p' '%s'", dat))
rows = int(system(sprintf("awk '/^# slices/ {exit} /^[0-9]/ {n = $1} END {print n}' '%s'", dat))) + 1

set terminal pngcairo size width,height enhanced font "sans,12"
set output out
set title sprintf("%s\n{/*0.85 %s}", title, subtitle)
set xlabel "simulated time (ms)"
set yrange [rows:-0.5]
set xrange [0:*]
set ytics nomirror scale 0
set xtics nomirror out
set grid xtics lc rgb "#dddddd"
set border 3
set lmargin 30
set bmargin 6
set key at screen 0.5, screen 0.03 center bottom horizontal samplen 1.5 width 2

# one colour per category (scripts/trace2dat numbers them); backward in a darker shade of forward
set linetype 1 lc rgb "#8fb8de"
set linetype 2 lc rgb "#3a6ea5"
set linetype 3 lc rgb "#f28e2b"
set linetype 4 lc rgb "#59a14f"
set linetype 5 lc rgb "#e15759"
set linetype 6 lc rgb "#9c6ab1"
set linetype 7 lc rgb "#1a1a1a"
set linetype 8 lc rgb "#ffffff"
set style fill solid 1.0 noborder

# block 0 sets the row labels; block 1 draws the slices (x, y, xlow, xhigh, ylow, yhigh, colour); block 2 the labels
plot dat index 0 using (NaN):1:ytic(2) notitle, \
     dat index 1 using (($1 + $2) / 2):3:1:2:($3 - 0.38):($3 + 0.38):4 with boxxyerror lc variable notitle, \
     dat index 2 using 1:2:3:4 with labels font "sans,9" tc variable notitle, \
     NaN with boxes lt 1 title "forward", NaN with boxes lt 2 title "backward", \
     NaN with boxes lt 3 title "TP all-reduce", NaN with boxes lt 4 title "PP send", \
     NaN with boxes lt 5 title "DP all-reduce", NaN with boxes lt 6 title "optimizer"

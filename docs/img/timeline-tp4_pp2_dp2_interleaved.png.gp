# timeline-tp4_pp2_dp2_interleaved.png.gp: gpusim plot timeline of a `gpusim predict --trace` file (golden-tp4-pp2-dp2-interleaved on h100-dgx).
# Reads timeline-tp4_pp2_dp2_interleaved.png.dat (block 0 the rows, 1 the rectangles, 2 the micro-batch labels); writes timeline-tp4_pp2_dp2_interleaved.png.
# Edit freely, then run in this folder:  gnuplot timeline-tp4_pp2_dp2_interleaved.png.gp
set terminal pngcairo size 1600,415 font 'sans,12' noenhanced
set output 'timeline-tp4_pp2_dp2_interleaved.png'
set title 'golden-tp4-pp2-dp2-interleaved on h100-dgx: one training step, 515.5 ms'."\n".'dp 2 x tp 4 x pp 2, interleaved (v = 2), 8 micro-batches; every stage (GPU dp 0, tp 0)'
set xlabel 'simulated time (ms)'
set yrange [9:-0.5]
set xrange [0:518.05]
set ytics nomirror scale 0
set xtics nomirror out
set grid xtics lc rgb '#dddddd'
set border 3
set lmargin 30
set bmargin 6
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 1.5 width 2
# a colour per category; backward a darker shade of forward; 7 and 8 the label colours
set linetype 1 lc rgb '#8fb8de'
set linetype 2 lc rgb '#3a6ea5'
set linetype 3 lc rgb '#f28e2b'
set linetype 4 lc rgb '#59a14f'
set linetype 5 lc rgb '#e15759'
set linetype 6 lc rgb '#9c6ab1'
set linetype 7 lc rgb '#1a1a1a'
set linetype 8 lc rgb '#ffffff'
set linetype 9 lc rgb '#5b8cc0'
set style fill solid 1.0 noborder
plot 'timeline-tp4_pp2_dp2_interleaved.png.dat' index 0 using (NaN):1:ytic(2) notitle, \
     'timeline-tp4_pp2_dp2_interleaved.png.dat' index 1 using (($1 + $2) / 2):3:1:2:($3 - 0.38):($3 + 0.38):4 with boxxyerror lc variable notitle, \
     'timeline-tp4_pp2_dp2_interleaved.png.dat' index 2 using 1:2:3:4 with labels font ',9' tc variable notitle, \
     NaN with boxes lt 1 title 'forward', NaN with boxes lt 2 title 'backward', \
     NaN with boxes lt 3 title 'TP collective', \
     NaN with boxes lt 4 title 'PP transfer', \
     NaN with boxes lt 5 title 'DP collective', NaN with boxes lt 6 title 'optimizer'

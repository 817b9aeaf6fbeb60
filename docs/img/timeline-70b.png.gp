# timeline-70b.png.gp: gpusim plot timeline of a `gpusim predict --trace` file (llama2-70b-64gpu on h100-dgx).
# Reads timeline-70b.png.dat (block 0 the rows, 1 the rectangles, 2 the micro-batch labels); writes timeline-70b.png.
# Edit freely, then run in this folder:  gnuplot timeline-70b.png.gp
set terminal pngcairo size 1600,250 font 'sans,12' noenhanced
set output 'timeline-70b.png'
set title 'llama2-70b-64gpu on h100-dgx: one training step, 65.57 s'."\n".'dp 2 x tp 8 x pp 4, 1f1b, 512 micro-batches; stage 0, the critical one (GPU dp 0, tp 0)'
set xlabel 'simulated time (s)'
set yrange [3.5:-0.5]
set xrange [0:65.899]
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
plot 'timeline-70b.png.dat' index 0 using (NaN):1:ytic(2) notitle, \
     'timeline-70b.png.dat' index 1 using (($1 + $2) / 2):3:1:2:($3 - 0.38):($3 + 0.38):4 with boxxyerror lc variable notitle, \
     NaN with boxes lt 9 title 'passes and TP (zoom: --window)', \
     NaN with boxes lt 4 title 'PP transfer', \
     NaN with boxes lt 5 title 'DP collective', NaN with boxes lt 6 title 'optimizer'

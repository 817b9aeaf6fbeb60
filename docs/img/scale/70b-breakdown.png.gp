# 70b-breakdown.png.gp: gpusim plot breakdown of a strong-scaling sweep of llama2-70b-64gpu (sweep db220b43b9281d28).
# Reads 70b-breakdown.png.dat (columns listed at its top); writes 70b-breakdown.png. Edit freely, then run in this folder:
#   gnuplot 70b-breakdown.png.gp
set terminal pngcairo size 1000,620 font 'sans,12' noenhanced
set output '70b-breakdown.png'
set title 'Where the step time goes: llama2-70b-64gpu, strong scaling'."\n".'on h100-dgx' font ',14'
set ylabel 'share of the step time on the critical GPU (%)'
set xlabel 'GPUs'
set yrange [0:112]
set ytics 0,20,100
set grid ytics
set style fill solid 0.9 border rgb '#333333'
set boxwidth 0.72
set key below center horizontal samplen 2
set xtics nomirror scale 0
set tics out
set xrange [-0.7:5.7]
# cum_k: sum of the drawn parts up to and including part k, stacked in this order
cum0(x) = 0+$7
cum1(x) = 0+$7+$8
cum2(x) = 0+$7+$8+$9
cum3(x) = 0+$7+$8+$9+$10
cum4(x) = 0+$7+$8+$9+$10+$11
cum5(x) = 0+$7+$8+$9+$10+$11+$12
step_label(ms) = ms >= 1000 ? sprintf('%.3g s', ms / 1000) : sprintf('%.3g ms', ms)
plot NaN with boxes lc rgb '#4c72b0' title 'compute', \
     NaN with boxes lc rgb '#dd8452' title 'exposed TP communication', \
     NaN with boxes lc rgb '#55a868' title 'exposed PP communication', \
     NaN with boxes lc rgb '#c44e52' title 'exposed DP communication', \
     NaN with boxes lc rgb '#b0b0b0' title 'pipeline bubble', \
     NaN with boxes lc rgb '#8172b3' title 'optimizer', \
     '70b-breakdown.png.dat' using 16:(cum5(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#8172b3' notitle, \
     '70b-breakdown.png.dat' using 16:(cum4(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#b0b0b0' notitle, \
     '70b-breakdown.png.dat' using 16:(cum3(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#c44e52' notitle, \
     '70b-breakdown.png.dat' using 16:(cum2(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#55a868' notitle, \
     '70b-breakdown.png.dat' using 16:(cum1(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#dd8452' notitle, \
     '70b-breakdown.png.dat' using 16:(cum0(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#4c72b0' notitle, \
     '70b-breakdown.png.dat' using 16:(cum5(0)):(step_label($6)) with labels offset 0,0.8 font ',10' notitle

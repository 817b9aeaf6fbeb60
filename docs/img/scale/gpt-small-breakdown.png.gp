# gpt-small-breakdown.png.gp: gpusim plot breakdown of a strong-scaling sweep of gpt-small-2gpu (sweep 08152ee4cbf82482).
# Reads gpt-small-breakdown.png.dat (columns listed at its top); writes gpt-small-breakdown.png. Edit freely, then run in this folder:
#   gnuplot gpt-small-breakdown.png.gp
set terminal pngcairo size 1000,620 font 'sans,12' noenhanced
set output 'gpt-small-breakdown.png'
set title 'Where the step time goes: gpt-small-2gpu, strong scaling'."\n".'hardware: h100-dgx and rtx4070ti-super-pcie' font ',14'
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
set xrange [-0.7:8.7]
set bmargin 5.5
set label 'h100-dgx' at first 1.5, graph -0.1 center font ',12'
set label 'rtx4070ti-super-pcie' at first 6.5, graph -0.1 center font ',12'
unset xlabel
set label 'GPUs' at graph 0, graph -0.045 right offset -1.5,0
# cum_k: sum of the drawn parts up to and including part k, stacked in this order
cum0(x) = 0+$7
cum1(x) = 0+$7+$10
cum2(x) = 0+$7+$10+$12
cum3(x) = 0+$7+$10+$12+$13
step_label(ms) = ms >= 1000 ? sprintf('%.3g s', ms / 1000) : sprintf('%.3g ms', ms)
plot NaN with boxes lc rgb '#4c72b0' title 'compute', \
     NaN with boxes lc rgb '#c44e52' title 'exposed DP communication', \
     NaN with boxes lc rgb '#8172b3' title 'optimizer', \
     NaN with boxes lc rgb '#937860' title 'waiting for the host', \
     'gpt-small-breakdown.png.dat' using 16:(cum3(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#937860' notitle, \
     'gpt-small-breakdown.png.dat' using 16:(cum2(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#8172b3' notitle, \
     'gpt-small-breakdown.png.dat' using 16:(cum1(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#c44e52' notitle, \
     'gpt-small-breakdown.png.dat' using 16:(cum0(0)):xtic(sprintf('%d', $1)) with boxes lc rgb '#4c72b0' notitle, \
     'gpt-small-breakdown.png.dat' using 16:(cum3(0)):(step_label($6)) with labels offset 0,0.8 font ',10' notitle

# gpt-small-compare.png.gp: gpusim plot compare of a strong-scaling sweep of gpt-small-2gpu (sweep 08152ee4cbf82482).
# Reads gpt-small-compare.png.dat (columns listed at its top); writes gpt-small-compare.png. Edit freely, then run in this folder:
#   gnuplot gpt-small-compare.png.gp
set terminal pngcairo size 1000,820 font 'sans,12' noenhanced
set output 'gpt-small-compare.png'
set multiplot
set title 'Hardware comparison: gpt-small-2gpu, strong scaling'."\n".'hardware: h100-dgx and rtx4070ti-super-pcie' font ',14'
set lmargin 12
set rmargin 4
set origin 0,0.36
set size 1,0.60
set logscale x 2
set logscale y 10
set format y '%.0s%c'
set ylabel 'throughput (tokens/s)'
set format x ''
set grid
set key top left box opaque
set xtics (1, 2, 4, 8)
set xrange [0.8:10]
plot 'gpt-small-compare.png.dat' index 0 using 1:3:19:20 with yerrorbars lw 1.5 pt 7 ps 0 lc rgb '#1f77b4' title 'h100-dgx, fast to slow host', \
     'gpt-small-compare.png.dat' index 0 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#1f77b4' title 'h100-dgx', \
     'gpt-small-compare.png.dat' index 1 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#d62728' title 'rtx4070ti-super-pcie'
unset title
set origin 0,0.02
set size 1,0.36
unset logscale y
set format y '%g'
set format x '%g'
set xlabel 'GPUs'
set tmargin 2
set ylabel 'throughput ratio'
set yrange [0:86.6394]
set ytics 50
set key outside top center horizontal nobox
plot 1 with lines dt 2 lw 2 lc rgb '#555555' title 'equal', \
     'gpt-small-compare.png.dat' index 2 using 1:2 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#333333' title 'h100-dgx / rtx4070ti-super-pcie', \
     'gpt-small-compare.png.dat' index 2 using 1:2:(sprintf('%.2fx', $2)) with labels offset 0,1.1 font ',11' notitle
unset multiplot

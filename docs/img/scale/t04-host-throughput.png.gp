# t04-host-throughput.png.gp: gpusim plot throughput of a strong-scaling sweep of t04-single (sweep 67fe6a21240a86c0).
# Reads t04-host-throughput.png.dat (columns listed at its top); writes t04-host-throughput.png. Edit freely, then run in this folder:
#   gnuplot t04-host-throughput.png.gp
set terminal pngcairo size 1000,620 font 'sans,12' noenhanced
set output 't04-host-throughput.png'
set title 'Throughput: t04-single, strong scaling'."\n".'hardware: h200x2-1128p-measured and h200-sxm' font ',14'
set xlabel 'GPUs'
set ylabel 'throughput (tokens/s)'
set logscale x 2
set logscale y 10
set format y '%.0s%c'
set xtics (1, 2, 4, 8)
set xrange [0.8:10]
set grid
set key top left box opaque
plot 't04-host-throughput.png.dat' index 0 using 1:3:19:20 with yerrorbars lw 1.5 pt 7 ps 0 lc rgb '#1f77b4' title 'h200x2-1128p-measured, fast to slow host', \
     't04-host-throughput.png.dat' index 0 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#1f77b4' title 'h200x2-1128p-measured', \
     't04-host-throughput.png.dat' index 0 using 1:4 with lines dt 2 lw 1.5 lc rgb '#1f77b4' title 'h200x2-1128p-measured, ideal', \
     't04-host-throughput.png.dat' index 1 using 1:3:19:20 with yerrorbars lw 1.5 pt 7 ps 0 lc rgb '#d62728' title 'h200-sxm, fast to slow host', \
     't04-host-throughput.png.dat' index 1 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#d62728' title 'h200-sxm', \
     't04-host-throughput.png.dat' index 1 using 1:4 with lines dt 2 lw 1.5 lc rgb '#d62728' title 'h200-sxm, ideal'

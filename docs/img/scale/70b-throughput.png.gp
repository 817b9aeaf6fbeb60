# 70b-throughput.png.gp: gpusim plot throughput of a strong-scaling sweep of llama2-70b-64gpu (sweep f5545b29c6871b9d).
# Reads 70b-throughput.png.dat (columns listed at its top); writes 70b-throughput.png. Edit freely, then run in this folder:
#   gnuplot 70b-throughput.png.gp
set terminal pngcairo size 1000,620 font 'sans,12' noenhanced
set output '70b-throughput.png'
set title 'Throughput: llama2-70b-64gpu, strong scaling'."\n".'hardware: h100-dgx, h200-sxm and a100-dgx' font ',14'
set xlabel 'GPUs'
set ylabel 'throughput (tokens/s)'
set logscale x 2
set logscale y 10
set format y '%.0s%c'
set xtics (64, 128, 256, 512, 1024, 2048)
set xrange [51.2:2560]
set grid
set key top left box opaque
plot '70b-throughput.png.dat' index 0 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#1f77b4' title 'h100-dgx', \
     '70b-throughput.png.dat' index 0 using 1:4 with lines dt 2 lw 1.5 lc rgb '#1f77b4' title 'h100-dgx, ideal', \
     '70b-throughput.png.dat' index 1 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#d62728' title 'h200-sxm', \
     '70b-throughput.png.dat' index 1 using 1:4 with lines dt 2 lw 1.5 lc rgb '#d62728' title 'h200-sxm, ideal', \
     '70b-throughput.png.dat' index 2 using 1:3 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#2ca02c' title 'a100-dgx', \
     '70b-throughput.png.dat' index 2 using 1:4 with lines dt 2 lw 1.5 lc rgb '#2ca02c' title 'a100-dgx, ideal'

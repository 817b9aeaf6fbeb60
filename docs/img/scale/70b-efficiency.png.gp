# 70b-efficiency.png.gp: gpusim plot efficiency of a strong-scaling sweep of llama2-70b-64gpu (sweep f5545b29c6871b9d).
# Reads 70b-efficiency.png.dat (columns listed at its top); writes 70b-efficiency.png. Edit freely, then run in this folder:
#   gnuplot 70b-efficiency.png.gp
set terminal pngcairo size 1000,620 font 'sans,12' noenhanced
set output '70b-efficiency.png'
set title 'Scaling efficiency: llama2-70b-64gpu, strong scaling'."\n".'hardware: h100-dgx, h200-sxm and a100-dgx' font ',14'
set xlabel 'GPUs'
set ylabel 'scaling efficiency (%)'
set logscale x 2
set xtics (64, 128, 256, 512, 1024, 2048)
set xrange [51.2:2560]
set yrange [0:110]
set grid
set key bottom left box opaque
plot 100 with lines dt 2 lw 2 lc rgb '#555555' title 'ideal (100 %)', \
     '70b-efficiency.png.dat' index 0 using 1:2 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#1f77b4' title 'h100-dgx', \
     '70b-efficiency.png.dat' index 1 using 1:2 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#d62728' title 'h200-sxm', \
     '70b-efficiency.png.dat' index 2 using 1:2 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#2ca02c' title 'a100-dgx'

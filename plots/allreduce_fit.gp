# plots/allreduce_fit.gp: measured NCCL all-reduce time on 2 H200s against gpusim calibrate's fitted envelope.
# Input: the raw CSV calibrate writes with --raw (hardware/h200x2-measured/collectives.csv), columns
#   scope,op,n,bytes,time_us,min_us,max_us,algbw_gbps,busbw_gbps,fit_us,rel_err
# Run from the repository root:  gnuplot plots/allreduce_fit.gp   (writes docs/img/allreduce_fit.png)
# A different CSV or output: gnuplot -e "csv='x.csv'; out='x.png'" plots/allreduce_fit.gp
if (!exists("csv")) csv = "hardware/h200x2-measured/collectives.csv"
if (!exists("out")) out = "docs/img/allreduce_fit.png"

set datafile separator ","
set terminal pngcairo size 1100,820 font "sans,11"
set output out
set multiplot title "NCCL all-reduce, 2 x H200 (NVLink): measured and fitted (gpusim calibrate)"
set lmargin 12
set rmargin 4

# only all_reduce rows of the intra scope: other rows become invalid points
ar(col) = (strcol(1) eq "intra" && strcol(2) eq "all_reduce") ? column(col) : NaN

set logscale xy
set format x "%.0s%cB"
set xrange [6:6e9]
set ylabel "time per operation (us)"
set grid
set key top left
set origin 0,0.36
set size 1,0.60
plot csv skip 1 using (ar(4)):(ar(5)):(ar(6)):(ar(7)) with yerrorbars pt 7 ps 0.8 lc rgb "#1f77b4" title "measured (median; min..max of trials)", \
     csv skip 1 using (ar(4)):(ar(10)) with lines lw 2 lc rgb "#d62728" title "fitted lower envelope of lines"

unset logscale y
set logscale x
set origin 0,0
set size 1,0.36
unset title
set ylabel "relative error (%)"
set yrange [-25:25]
set ytics 5
set xlabel "message size (bytes, as nccl-tests counts them)"
plot csv skip 1 using (ar(4)):(100*ar(11)) with linespoints pt 7 ps 0.6 lc rgb "#2ca02c" title "(fit - measured) / measured", \
     5 with lines dt 2 lc rgb "gray" title "5% (median target)", -5 with lines dt 2 lc rgb "gray" notitle, \
     15 with lines dt 3 lc rgb "black" title "15% (max target)", -15 with lines dt 3 lc rgb "black" notitle
unset multiplot

# validation_scatter.gp: predicted against measured, one point per row of `gpusim validate --format csv`, on
# log-log axes with the y = x line and the +-10% band. Rows without a prediction are left out; failed sign
# checks are drawn as crosses.
#   gpusim validate validate/measured-h200x2.csv --format csv > build/validation.csv
#   gnuplot -e "in='build/validation.csv'; out='docs/validation-h200x2.png'" plots/validation_scatter.gp
# Variables (-e): in (CSV), out (PNG; .svg gives SVG), title, unit (axis unit; default from the metric column:
# "s" for step_s, "TFLOP/s per GPU" for tflops_per_gpu).
if (!exists("in")) in = "validation.csv"
if (!exists("out")) out = "validation.png"
if (!exists("title")) title = "gpusim: predicted vs measured"

set datafile separator ","
set datafile commentschars "#"
# metric of the first data row (column 3), for the axis unit
metric = system(sprintf("awk -F, '!/^#/ && NR > 1 {print $3; exit}' '%s'", in))
if (!exists("unit")) unit = (metric eq "tflops_per_gpu") ? "TFLOP/s per GPU" : "s"

if (out[strlen(out)-3:] eq "svg") {
	set terminal svg size 720,640 dynamic enhanced font "sans,12"
} else {
	set terminal pngcairo size 900,800 enhanced font "sans,12"
}
set output out
set title title
set xlabel sprintf("measured (%s)", unit)
set ylabel sprintf("predicted (%s)", unit)
set logscale xy
set size square
set grid
set key top left

stats in using 4:5 nooutput
lo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 1.3
hi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 1.3
set xrange [lo:hi]
set yrange [lo:hi]

# column 11 (speedup_sign_ok) is "false" only for a wrong sign; have() skips rows with no prediction
have(c) = strlen(strcol(c)) > 0 ? column(c) : NaN
wrong(c) = strcol(11) eq "false" ? have(c) : NaN
plot x with lines lw 2 lc rgb "#444444" title "y = x", \
     1.1*x with lines dt 2 lc rgb "#888888" title "+-10%", \
     0.9*x with lines dt 2 lc rgb "#888888" notitle, \
     in every ::1 using 4:(have(5)) with points pt 7 ps 1.2 lc rgb "#1f77b4" title "rows", \
     in every ::1 using 4:(wrong(5)) with points pt 2 ps 2.5 lw 2 lc rgb "#d62728" title "speedup on the wrong side of 1"

build-san/src/runner.o: src/runner.c src/runner.h src/backend.h \
 kernels/kernels.h src/config.h src/csvlog.h src/log_columns.h \
 src/sweep.h kernels/pattern.h src/power/energy.h src/power/power.h \
 src/stats.h src/util.h
src/runner.h:
src/backend.h:
kernels/kernels.h:
src/config.h:
src/csvlog.h:
src/log_columns.h:
src/sweep.h:
kernels/pattern.h:
src/power/energy.h:
src/power/power.h:
src/stats.h:
src/util.h:

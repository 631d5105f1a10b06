build-san/src/main.o: src/main.c src/backend.h kernels/kernels.h \
 src/board.h src/compare.h src/config.h src/csvlog.h src/log_columns.h \
 src/lock.h src/power/power.h src/powercmd.h src/retention.h src/runner.h \
 src/sweep.h src/util.h
src/backend.h:
kernels/kernels.h:
src/board.h:
src/compare.h:
src/config.h:
src/csvlog.h:
src/log_columns.h:
src/lock.h:
src/power/power.h:
src/powercmd.h:
src/retention.h:
src/runner.h:
src/sweep.h:
src/util.h:

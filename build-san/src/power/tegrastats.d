build-san/src/power/tegrastats.o: src/power/tegrastats.c \
 src/power/power.h src/power/tegrastats.h src/config.h src/backend.h \
 kernels/kernels.h src/util.h
src/power/power.h:
src/power/tegrastats.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/util.h:

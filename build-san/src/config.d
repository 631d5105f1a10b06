build-san/src/config.o: src/config.c src/config.h src/backend.h \
 kernels/kernels.h src/power/power.h src/util.h
src/config.h:
src/backend.h:
kernels/kernels.h:
src/power/power.h:
src/util.h:

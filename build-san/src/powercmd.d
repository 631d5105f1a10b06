build-san/src/powercmd.o: src/powercmd.c src/powercmd.h src/config.h \
 src/backend.h kernels/kernels.h src/power/power.h src/util.h
src/powercmd.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/power/power.h:
src/util.h:

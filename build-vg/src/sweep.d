build-vg/src/sweep.o: src/sweep.c src/sweep.h src/config.h src/backend.h \
 kernels/kernels.h
src/sweep.h:
src/config.h:
src/backend.h:
kernels/kernels.h:

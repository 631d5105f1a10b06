build-vg/tests/test_sweep.o: tests/test_sweep.c tests/helpers.h \
 src/config.h src/backend.h kernels/kernels.h src/sweep.h src/config.h
tests/helpers.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/sweep.h:
src/config.h:

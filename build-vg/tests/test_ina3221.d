build-vg/tests/test_ina3221.o: tests/test_ina3221.c tests/helpers.h \
 src/config.h src/backend.h kernels/kernels.h src/util.h \
 src/power/ina3221.h src/power/power.h
tests/helpers.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/util.h:
src/power/ina3221.h:
src/power/power.h:

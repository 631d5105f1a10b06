build-vg/tests/test_nvml.o: tests/test_nvml.c tests/helpers.h \
 src/config.h src/backend.h kernels/kernels.h src/util.h \
 src/power/power.h
tests/helpers.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/util.h:
src/power/power.h:

build-vg/tests/test_config.o: tests/test_config.c tests/helpers.h \
 src/backend.h kernels/kernels.h src/config.h src/backend.h
tests/helpers.h:
src/backend.h:
kernels/kernels.h:
src/config.h:
src/backend.h:

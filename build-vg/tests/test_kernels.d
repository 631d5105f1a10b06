build-vg/tests/test_kernels.o: tests/test_kernels.c tests/helpers.h \
 kernels/kernels.h kernels/pattern.h
tests/helpers.h:
kernels/kernels.h:
kernels/pattern.h:

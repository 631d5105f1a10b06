build-san/src/backend_cpu.o: src/backend_cpu.c src/backend.h \
 kernels/kernels.h kernels/pattern.h src/util.h
src/backend.h:
kernels/kernels.h:
kernels/pattern.h:
src/util.h:

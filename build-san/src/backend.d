build-san/src/backend.o: src/backend.c src/backend.h kernels/kernels.h
src/backend.h:
kernels/kernels.h:

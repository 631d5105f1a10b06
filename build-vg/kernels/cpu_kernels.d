build-vg/kernels/cpu_kernels.o: kernels/cpu_kernels.c kernels/kernels.h
kernels/kernels.h:

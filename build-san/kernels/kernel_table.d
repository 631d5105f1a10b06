build-san/kernels/kernel_table.o: kernels/kernel_table.c \
 kernels/kernels.h
kernels/kernels.h:

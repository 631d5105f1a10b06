build-san/src/power/nvml.o: src/power/nvml.c src/power/power.h \
 src/config.h src/backend.h kernels/kernels.h src/util.h
src/power/power.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/util.h:

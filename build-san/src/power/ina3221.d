build-san/src/power/ina3221.o: src/power/ina3221.c src/power/power.h \
 src/power/ina3221.h src/config.h src/backend.h kernels/kernels.h \
 src/util.h
src/power/power.h:
src/power/ina3221.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/util.h:

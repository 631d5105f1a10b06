build-vg/src/power/sampler.o: src/power/sampler.c src/power/power.h \
 src/util.h
src/power/power.h:
src/util.h:

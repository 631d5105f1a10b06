build-vg/src/stats.o: src/stats.c src/stats.h
src/stats.h:

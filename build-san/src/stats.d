build-san/src/stats.o: src/stats.c src/stats.h
src/stats.h:

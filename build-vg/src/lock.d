build-vg/src/lock.o: src/lock.c src/lock.h src/util.h
src/lock.h:
src/util.h:

build-san/src/retention.o: src/retention.c src/retention.h src/util.h
src/retention.h:
src/util.h:

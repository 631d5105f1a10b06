build-san/tests/helpers.o: tests/helpers.c tests/helpers.h
tests/helpers.h:

build-san/tests/test_stats.o: tests/test_stats.c tests/helpers.h \
 src/stats.h
tests/helpers.h:
src/stats.h:

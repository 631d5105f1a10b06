build-vg/tests/test_csvlog.o: tests/test_csvlog.c tests/helpers.h \
 src/csvlog.h src/log_columns.h src/util.h
tests/helpers.h:
src/csvlog.h:
src/log_columns.h:
src/util.h:

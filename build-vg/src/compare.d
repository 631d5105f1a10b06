build-vg/src/compare.o: src/compare.c src/compare.h src/csvlog.h \
 src/log_columns.h src/util.h
src/compare.h:
src/csvlog.h:
src/log_columns.h:
src/util.h:

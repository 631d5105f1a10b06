build-vg/src/csvlog.o: src/csvlog.c src/csvlog.h src/log_columns.h \
 src/util.h
src/csvlog.h:
src/log_columns.h:
src/util.h:

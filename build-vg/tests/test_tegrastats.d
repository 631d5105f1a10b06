build-vg/tests/test_tegrastats.o: tests/test_tegrastats.c tests/helpers.h \
 src/power/tegrastats.h src/power/power.h
tests/helpers.h:
src/power/tegrastats.h:
src/power/power.h:

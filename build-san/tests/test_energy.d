build-san/tests/test_energy.o: tests/test_energy.c tests/helpers.h \
 src/power/energy.h
tests/helpers.h:
src/power/energy.h:

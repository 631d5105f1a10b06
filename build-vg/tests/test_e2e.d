build-vg/tests/test_e2e.o: tests/test_e2e.c tests/helpers.h
tests/helpers.h:

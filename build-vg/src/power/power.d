build-vg/src/power/power.o: src/power/power.c src/power/power.h
src/power/power.h:

build-san/src/power/none.o: src/power/none.c src/power/power.h
src/power/power.h:

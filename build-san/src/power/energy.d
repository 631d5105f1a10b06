build-san/src/power/energy.o: src/power/energy.c src/power/energy.h
src/power/energy.h:

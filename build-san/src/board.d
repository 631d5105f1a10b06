build-san/src/board.o: src/board.c src/board.h src/config.h src/backend.h \
 kernels/kernels.h src/util.h
src/board.h:
src/config.h:
src/backend.h:
kernels/kernels.h:
src/util.h:

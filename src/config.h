/* config.h: a forwarding header, kept only while src/board.c (another branch's room) still
 * includes "config.h"; the configuration's public header is src/config/config.h. Remove
 * this file once board.c includes "config/config.h". Not here: any declaration. */
#include "config/config.h"

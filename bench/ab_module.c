/* ab_module.c — the translation unit of gjk_ab_module (bench/ab.cmake): the module is the
 * whole static core; a library target needs at least one source of its own. */
#include "gjk/gjk.h"

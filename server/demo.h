/* demo.h — the demo scene (examples/demo/scene.json, embedded at build time), loaded at
 * start by --demo (a --scene file: scene.h). */
#ifndef GJKD_DEMO_H
#define GJKD_DEMO_H

#include "dispatch.h"

/* Loads the embedded demo scene into an empty service at revision 1 (persisting it if the
 * service has a store). False with a message if this gjkd was built without it or it does
 * not load. */
bool gjkd_demo_load(gjkd_service *service, gjkd_error *error);

#endif /* GJKD_DEMO_H */

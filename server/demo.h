/* demo.h — scenes loaded at start: the demo scene (examples/demo/scene.json, embedded at
 * build time) and a JSON scene file (--scene). */
#ifndef GJKD_DEMO_H
#define GJKD_DEMO_H

#include "dispatch.h"

/* Loads the embedded demo scene into an empty service (persisting it if the service has a
 * store). False with a message if this gjkd was built without it or it does not load. */
bool gjkd_demo_load(gjkd_service *service, gjkd_error *error);

/* Loads a JSON scene file (gjkd_json's "gjkd-scene/1" document) into an empty service, the
 * same way (revision 1 unless the file gives one; persisted if there is a store). False with
 * a message naming the file and the JSON path of the problem. */
bool gjkd_scene_file_load(gjkd_service *service, const char *path, gjkd_error *error);

#endif /* GJKD_DEMO_H */

/* documents.h — gjkctl's JSON documents read from files: each call reads PATH, parses it with
 * the JSON codec (proto/json/gjkd_json.h) and, on failure, prints one line naming the file (and
 * the JSON path of the error) on stderr. Release what they give with the gjkd_json_*_free call
 * of the message. */
#ifndef GJKCTL_DOCUMENTS_H
#define GJKCTL_DOCUMENTS_H

#include <stdbool.h>

#include "gjkd/v1/gjkd.pb-c.h"

bool gjkctl_read_scene(const char *path, Gjkd__V1__Scene **out);
bool gjkctl_read_poses(const char *path, Gjkd__V1__SetLinkPosesRequest **out);
/* A JointState document for `robot` (gjkctl joints). */
bool gjkctl_read_joint_state(const char *path, const char *robot,
                             Gjkd__V1__SetLinkPosesRequest **out);
bool gjkctl_read_trajectory(const char *path, Gjkd__V1__TrajectoryQueryRequest **out);

#endif /* GJKCTL_DOCUMENTS_H */

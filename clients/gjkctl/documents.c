/* documents.c — gjkctl's JSON documents read from files (documents.h). */
#include "documents.h"

#include <stdio.h>
#include <stdlib.h>

#include "gjkd_json.h"

/* The whole file, or NULL with the reason printed. */
static char *read_text(const char *path, size_t *length)
{
    gjkd_json_error err;
    char *text = gjkd_json_read_file(path, length, &err);
    if (text == NULL)
        fprintf(stderr, "gjkctl: %s\n", err.message);
    return text;
}

/* Frees the text and prints a parser's failure. */
static bool parsed(bool ok, char *text, const char *path, const gjkd_json_error *err)
{
    free(text);
    if (!ok)
        fprintf(stderr, "gjkctl: %s: %s\n", path, err->message);
    return ok;
}

bool gjkctl_read_scene(const char *path, Gjkd__V1__Scene **out)
{
    size_t len;
    gjkd_json_error err;
    char *text = read_text(path, &len);
    return text != NULL && parsed(gjkd_json_parse_scene(text, len, out, &err), text, path, &err);
}

bool gjkctl_read_poses(const char *path, Gjkd__V1__SetLinkPosesRequest **out)
{
    size_t len;
    gjkd_json_error err;
    char *text = read_text(path, &len);
    return text != NULL && parsed(gjkd_json_parse_poses(text, len, out, &err), text, path, &err);
}

bool gjkctl_read_joint_state(const char *path, const char *robot,
                             Gjkd__V1__SetLinkPosesRequest **out)
{
    size_t len;
    gjkd_json_error err;
    char *text = read_text(path, &len);
    return text != NULL &&
           parsed(gjkd_json_parse_joint_state(text, len, robot, out, &err), text, path, &err);
}

bool gjkctl_read_trajectory(const char *path, Gjkd__V1__TrajectoryQueryRequest **out)
{
    size_t len;
    gjkd_json_error err;
    char *text = read_text(path, &len);
    return text != NULL &&
           parsed(gjkd_json_parse_trajectory(text, len, out, &err), text, path, &err);
}

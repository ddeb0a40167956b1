/* test_json_strings.c — who owns the strings of the messages gjkd_json returns (gjkd_json.h,
 * "Memory"): every string field is the caller's to free() and replace.
 *
 * Regression (issue 19): `gjkctl trajectory FILE --name N` died in free() (exit 134 or 139,
 * nothing printed) when FILE had no "name" key. The parser left the absent name pointing at
 * protobuf-c's static empty string (what the generated *__init puts there), gjkctl freed it to
 * put --name in its place. Each test below frees and replaces strings the parser left empty,
 * and crashed (glibc "free(): invalid pointer", or ASan) before the fix. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gjkd_json.h"

/* Frees every string field of m and of every message below it (the active member of a oneof
 * only), and puts a fresh malloc'd copy in its place: what a caller may do with any of them.
 * Returns the number of strings replaced. */
static size_t replace_every_string(ProtobufCMessage *m)
{
    size_t replaced = 0;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        char *field = (char *)m + f->offset;
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)((const char *)m + f->quantifier_offset) != f->id)
            continue;
        size_t n = 1;
        void **items = (void **)field;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            n = *(const size_t *)((const char *)m + f->quantifier_offset);
            items = *(void ***)field;
        }
        for (size_t k = 0; k < n; k++) {
            if (f->type == PROTOBUF_C_TYPE_STRING) {
                char *old = items[k];
                assert_non_null(old);
                char *fresh = strdup(old);
                assert_non_null(fresh);
                free(old);
                items[k] = fresh;
                replaced++;
            } else if (f->type == PROTOBUF_C_TYPE_MESSAGE && items[k] != NULL) {
                replaced += replace_every_string(items[k]);
            }
        }
    }
    return replaced;
}

/* The exact crash: no "name", the caller frees it and sets its own (gjkctl --name). */
static void trajectory_without_name_takes_a_name(void **state)
{
    (void)state;
    static const char doc[] = "{\"robot\": \"arm\", \"waypoints\": [{\"link_poses\": [{}]}]}";
    Gjkd__V1__TrajectoryQueryRequest *t;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_trajectory(doc, sizeof doc - 1, &t, &err));
    assert_string_equal(t->name, "");
    free(t->name);
    t->name = strdup("renamed");
    assert_non_null(t->name);
    /* The request still packs with its new name, and frees cleanly. */
    char *w = gjkd_json_write_trajectory(t);
    assert_non_null(w);
    assert_non_null(strstr(w, "\"name\":\t\"renamed\""));
    free(w);
    gjkd_json_trajectory_free(&t);
    assert_null(t);
}

/* Every string of every kind of document, optional ones left out: part names, the link of a
 * "robot/<star>" body, the side of a body that is not given. */
static void every_string_of_every_document_is_owned(void **state)
{
    (void)state;
    static const char scene_doc[] =
        "{\"robots\": [{\"name\": \"r\", \"links\": [{\"name\": \"l\", \"parts\": ["
        "  {\"type\": \"point\"}, {\"name\": \"named\", \"type\": \"sphere\", \"radius\": 1}]}],"
        "  \"disabled_pairs\": [[\"l\", \"l\"]]}],"
        " \"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"box\","
        "   \"half_extents\": [1, 2, 3]}]}],"
        " \"allowed_pairs\": [[\"r/*\", \"o\"], [{\"robot\": \"r\"}, {\"obstacle\": \"o\"}]]}";
    gjkd_json_error err;
    Gjkd__V1__Scene *s;
    assert_true(gjkd_json_parse_scene(scene_doc, sizeof scene_doc - 1, &s, &err));
    assert_string_equal(s->robots[0]->links[0]->parts[0]->name, "");
    assert_string_equal(s->allowed_pairs[0]->a->link, "");
    assert_string_equal(s->allowed_pairs[0]->b->robot, "");
    /* r, l, 2 part names, 2 disabled-pair names, o, its part name, 4 bodies x 3 strings. */
    assert_int_equal(replace_every_string(&s->base), 20);
    gjkd_json_scene_free(&s);

    static const char poses_doc[] = "{\"robots\": [{\"robot\": \"a\", \"link_poses\": [{}]},"
                                    " {\"robot\": \"b\", \"link_poses\": [{}]}]}";
    Gjkd__V1__SetLinkPosesRequest *p;
    assert_true(gjkd_json_parse_poses(poses_doc, sizeof poses_doc - 1, &p, &err));
    assert_int_equal(replace_every_string(&p->base), 2);
    gjkd_json_poses_free(&p);

    static const char traj_doc[] = "{\"robot\": \"arm\", \"waypoints\": [{\"link_poses\": [{}]}]}";
    Gjkd__V1__TrajectoryQueryRequest *t;
    assert_true(gjkd_json_parse_trajectory(traj_doc, sizeof traj_doc - 1, &t, &err));
    assert_int_equal(replace_every_string(&t->base), 2);
    gjkd_json_trajectory_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trajectory_without_name_takes_a_name),
        cmocka_unit_test(every_string_of_every_document_is_owned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

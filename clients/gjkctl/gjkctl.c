/* gjkctl — command-line client of gjkd, on libgjkd-client and gjkd_json.
 *
 *   gjkctl [--endpoint E] [--timeout S] [--retries N] [--json]
 *          [--server-key SERVER.pub --key CLIENT.key] COMMAND [ARGS]
 *
 * Exit status: 0 success; 1 the daemon refused the request (its status and message are
 * printed); 2 bad usage or a bad input file; 3 no reply (timeout) or a transport failure. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zmq.h>

#include "gjkd_client.h"
#include "gjkd_json.h"
#include "documents.h"
#include "gjkd_urdf.h"
#ifdef GJKCTL_VIEWER
#include "page.h"
#endif

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_REPLY = 3 };

static const char usage_text[] =
    "usage: gjkctl [GLOBAL OPTIONS] COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  health                          serving state, version, uptime, revision\n"
    "  stats                           counters per command and per error code, limits\n"
    "  scene [--export OUT.json]       robots and obstacles (or the whole scene as JSON)\n"
    "  load SCENE.json [--merge]       make the scene exactly this document, in one change\n"
    "                                  (--merge: add/replace its bodies by name, keep the others)\n"
    "  remove robot|obstacle NAME      remove a robot or an obstacle\n"
    "  poses POSES.json                set link poses (transient, not persisted)\n"
    "  joints ROBOT JOINTS.json        set joint positions of a robot with joints, JOINTS.json\n"
    "                                  a JointState: {\"name\": [...], \"position\": [...]}\n"
    "                                  (names in any order, a subset; without \"name\" the\n"
    "                                  full vector in the robot's DOF order), optionally\n"
    "                                  \"base_pose\": POSE to move the robot's base\n"
    "  query [--max-distance D] [--all] [--robot R] [--first-collision] [--no-depth]\n"
    "        [--per-part] [--gradients]\n"
    "                                  distances at the current link poses (--all: each body\n"
    "                                  pair within D once, --per-part: each part pair;\n"
    "                                  --gradients: d(distance)/dq per pair, with --json as\n"
    "                                  \"gradient\": {ROBOT: [...]} in the order of the\n"
    "                                  answer's \"joint_names\": {ROBOT: [...]})\n"
    "  trajectory TRAJ.json [--name N] [--max-distance D] [--all] [--plot OUT.svg]\n"
    "        [--per-part] [--gradients] distances along a trajectory, per waypoint (TRAJ.json:\n"
    "                                  link poses, or \"joint_names\" and joint vectors\n"
    "                                  \"waypoints\": [[q...], ...] for a robot with joints)\n"
    "        [--continuous [--continuous-tolerance T] [--continuous-budget N]]\n"
    "                                  and a certified verdict per segment between waypoints\n"
    "                                  (clear with a clearance lower bound, contact at t to\n"
    "                                  T of the segment (default 1e-6), or undecided after N\n"
    "                                  distance queries per part pair); --json: \"segments\"\n";
/* The commands of the browser pages (built with tools/viewer), between the two parts. */
static const char usage_viewer[] =
#ifdef GJKCTL_VIEWER
    "  view [--trajectory TRAJ.json] [--poses POSES.json] [--max-distance D] --out PAGE.html\n"
    "                                  a self-contained HTML page (three.js inlined): the\n"
    "                                  scene's hulls, the trajectory on a slider with play, the\n"
    "                                  witness segments of the pairs within D (default 0.1 m)\n"
    "                                  coloured by distance, the clearance profile;\n"
    "                                  PAGE.html#waypoint=K opens waypoint K; --poses: the\n"
    "                                  link poses last sent with `poses` (not in the scene)\n"
    "  trace A B [--trajectory TRAJ.json --waypoint K] [--poses POSES.json] --out PAGE.html\n"
    "                                  one pair's GJK and EPA iterations, step by step, in a\n"
    "                                  self-contained page (A, B: robot/link[/part] or\n"
    "                                  obstacle[/part]; without a part, the closest part pair),\n"
    "                                  at the current state or at waypoint K\n"
#endif
    "";
static const char usage_rest[] =
    "  bench SCENE.json TRAJ.json [--repeat N] [--all] [--max-distance D] [--per-part]\n"
    "        [--gradients]             time a scene of your own in the daemon: loads SCENE.json\n"
    "                                  (as load does: the daemon's scene becomes it), then runs\n"
    "                                  the trajectory N times (default 20) cold (no named cache)\n"
    "                                  and warm (a named cache, the same waypoints); prints the\n"
    "                                  daemon's handler time and round trip (median, fastest),\n"
    "                                  pairs checked and reported, time per pair checked\n"
    "  keygen NAME                     write a CURVE key pair: NAME.key (secret, 0600) and\n"
    "                                  NAME.pub (public; give it to gjkd --curve-allow)\n"
    "  load-urdf ROBOT.urdf [--srdf F] [--package-path DIR]... [--name N] [--no-adjacent]\n"
    "        [--dry-run]               import a URDF (+ SRDF, meshes hulled here) and put the\n"
    "                                  robot; prints links, joints, DOF, parts, hull vertices\n"
    "                                  and notes (--dry-run: import only, no daemon)\n"
    "  urdf-to-json ROBOT.urdf [same options]    the imported robot as a scene document\n"
    "                                  (gjkd-scene/1, for load or --scene) on stdout\n"
    "  urdf-to-proto ROBOT.urdf [same options]   the imported robot as a serialized\n"
    "                                  gjkd.v1.Robot on stdout (no daemon; for programs)\n"
    "\n"
    "global options:\n"
    "  --endpoint E     daemon endpoint (default tcp://127.0.0.1:7471, or $GJKD_ENDPOINT)\n"
    "  --timeout S      seconds to wait for each attempt (default 5)\n"
    "  --retries N      attempts after a timeout, reconnecting each time (default 2)\n"
    "  --expect-revision R   refuse the request unless the scene is at revision R\n"
    "  --json           machine-readable JSON on stdout instead of tables\n"
    "  --server-key F   CURVE: the daemon's public key file (or $GJKD_SERVER_KEY)\n"
    "  --key F          CURVE: this client's secret key file, 0600 (or $GJKD_CLIENT_KEY)\n"
    "  -h, --help       print this help and exit (also after a command)\n"
    "\n"
    "exit status: 0 ok, 1 refused by the daemon, 2 bad usage or input, 3 no reply\n";

static void print_usage(FILE *f)
{
    fputs(usage_text, f);
    fputs(usage_viewer, f);
    fputs(usage_rest, f);
}

/* ------------------------------------------------------------------ options */

typedef struct args {
    const char *endpoint;
    const char *server_key_file; /* CURVE: both or neither */
    const char *key_file;
    double timeout_s;
    int retries;
    bool json;
    bool has_expected_revision;
    uint64_t expected_revision;
    const char *command;
    const char *positional[3];
    int n_positional;
    /* command options */
    bool has_max_distance;
    double max_distance;
    bool all;
    bool per_part;
    bool first_collision;
    bool no_depth;
    bool merge;
    bool gradients;
    bool continuous;
    double continuous_tolerance;
    uint32_t continuous_budget;
    const char *robot;
    const char *name;
    const char *plot;
    const char *export_path;
    /* view, trace */
    const char *trajectory;
    const char *poses;
    const char *out;
    bool has_waypoint;
    uint64_t waypoint;
    /* load-urdf, urdf-to-proto */
    const char *srdf;
    const char *package_paths[64];
    int n_package_paths;
    bool dry_run;
    bool no_adjacent;
    /* bench */
    uint64_t repeat;
} args;

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gjkctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see gjkctl --help)\n", stderr); /* one line */
    va_end(ap);
    return EXIT_USAGE;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (s[0] == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return false;
    *out = (uint64_t)v;
    return true;
}

/* The options that take a value (--name V or --name=V): parse_args refuses any other option
 * before it looks for a value, and handles every one listed here. */
static bool takes_value(const char *key)
{
    static const char *const valued[] = {"--endpoint",     "--timeout",
                                         "--retries",      "--expect-revision",
                                         "--server-key",   "--key",
                                         "--max-distance", "--robot",
                                         "--name",         "--plot",
                                         "--export",       "--srdf",
                                         "--package-path", "--trajectory",
                                         "--out",          "--waypoint",
                                         "--poses",        "--repeat",
                                         "--continuous-tolerance", "--continuous-budget",
                                         NULL};
    for (const char *const *v = valued; *v != NULL; v++) {
        if (strcmp(key, *v) == 0)
            return true;
    }
    return false;
}

/* Returns 0 or an exit status. Options may come anywhere; "--opt=value" works too. --help
 * (or -h), also after a command, prints the usage on stdout and exits 0 before any work. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->endpoint = getenv("GJKD_ENDPOINT");
    a->server_key_file = getenv("GJKD_SERVER_KEY");
    a->key_file = getenv("GJKD_CLIENT_KEY");
    a->timeout_s = 5.0;
    a->retries = 2;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            print_usage(stdout);
            exit(0);
        }
        if (strncmp(arg, "--", 2) != 0 || strcmp(arg, "--") == 0) {
            if (a->command == NULL)
                a->command = arg;
            else if (a->n_positional < 3)
                a->positional[a->n_positional++] = arg;
            else
                return usage_error("too many arguments (\"%s\")", arg);
            continue;
        }
        char key[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (klen >= sizeof key)
            return usage_error("unknown option \"%s\"", arg);
        memcpy(key, arg, klen);
        key[klen] = '\0';
        if (eq)
            value = eq + 1;
        /* Flags without a value. */
        bool *flag = NULL;
        if (strcmp(key, "--json") == 0)
            flag = &a->json;
        else if (strcmp(key, "--all") == 0)
            flag = &a->all;
        else if (strcmp(key, "--per-part") == 0)
            flag = &a->per_part;
        else if (strcmp(key, "--first-collision") == 0)
            flag = &a->first_collision;
        else if (strcmp(key, "--no-depth") == 0)
            flag = &a->no_depth;
        else if (strcmp(key, "--merge") == 0)
            flag = &a->merge;
        else if (strcmp(key, "--gradients") == 0)
            flag = &a->gradients;
        else if (strcmp(key, "--continuous") == 0)
            flag = &a->continuous;
        else if (strcmp(key, "--dry-run") == 0)
            flag = &a->dry_run;
        else if (strcmp(key, "--no-adjacent") == 0)
            flag = &a->no_adjacent;
        if (flag) {
            if (value)
                return usage_error("%s takes no value", key);
            *flag = true;
            continue;
        }
        /* The table of options with a value decides what is known: an unknown option never
         * takes the next argument for its value. */
        if (!takes_value(key))
            return usage_error("unknown option \"%s\"", key);
        if (value == NULL) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", key);
            value = argv[++i];
        }
        if (strcmp(key, "--server-key") == 0) {
            a->server_key_file = value;
        } else if (strcmp(key, "--key") == 0) {
            a->key_file = value;
        } else if (strcmp(key, "--endpoint") == 0) {
            a->endpoint = value;
        } else if (strcmp(key, "--timeout") == 0) {
            if (!parse_double(value, &a->timeout_s) || a->timeout_s <= 0.0 ||
                a->timeout_s > 86400.0)
                return usage_error("--timeout: expected seconds > 0, got \"%s\"", value);
        } else if (strcmp(key, "--retries") == 0) {
            uint64_t r;
            if (!parse_u64(value, &r) || r > 100)
                return usage_error("--retries: expected 0..100, got \"%s\"", value);
            a->retries = (int)r;
        } else if (strcmp(key, "--expect-revision") == 0) {
            if (!parse_u64(value, &a->expected_revision))
                return usage_error("--expect-revision: expected an integer, got \"%s\"", value);
            a->has_expected_revision = true;
        } else if (strcmp(key, "--max-distance") == 0) {
            if (!parse_double(value, &a->max_distance) || a->max_distance < 0.0)
                return usage_error("--max-distance: expected metres >= 0, got \"%s\"", value);
            a->has_max_distance = true;
        } else if (strcmp(key, "--continuous-tolerance") == 0) {
            if (!parse_double(value, &a->continuous_tolerance) ||
                !(a->continuous_tolerance > 0.0) || a->continuous_tolerance > 0.5)
                return usage_error("--continuous-tolerance: expected a fraction in (0, 0.5], got "
                                   "\"%s\"",
                                   value);
        } else if (strcmp(key, "--continuous-budget") == 0) {
            uint64_t n;
            if (!parse_u64(value, &n) || n < 1 || n > UINT32_MAX)
                return usage_error("--continuous-budget: expected a count >= 1, got \"%s\"", value);
            a->continuous_budget = (uint32_t)n;
        } else if (strcmp(key, "--robot") == 0) {
            a->robot = value;
        } else if (strcmp(key, "--name") == 0) {
            a->name = value;
        } else if (strcmp(key, "--plot") == 0) {
            a->plot = value;
        } else if (strcmp(key, "--export") == 0) {
            a->export_path = value;
        } else if (strcmp(key, "--trajectory") == 0) {
            a->trajectory = value;
        } else if (strcmp(key, "--out") == 0) {
            a->out = value;
        } else if (strcmp(key, "--poses") == 0) {
            a->poses = value;
        } else if (strcmp(key, "--waypoint") == 0) {
            if (!parse_u64(value, &a->waypoint))
                return usage_error("--waypoint: expected a waypoint index, got \"%s\"", value);
            a->has_waypoint = true;
        } else if (strcmp(key, "--repeat") == 0) {
            if (!parse_u64(value, &a->repeat) || a->repeat < 1 || a->repeat > 100000)
                return usage_error("--repeat: expected 1..100000, got \"%s\"", value);
        } else if (strcmp(key, "--srdf") == 0) {
            a->srdf = value;
        } else if (strcmp(key, "--package-path") == 0) { /* repeated: searched in order */
            if (a->n_package_paths == (int)(sizeof a->package_paths / sizeof a->package_paths[0]))
                return usage_error("--package-path: at most %d directories", a->n_package_paths);
            a->package_paths[a->n_package_paths++] = value;
        } else { /* in takes_value's table but not handled here */
            return usage_error("option \"%s\" is not handled (internal)", key);
        }
    }
    if (a->command == NULL) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    return 0;
}

/* ------------------------------------------------------------------ output helpers */

/* Prints a cJSON document to stdout and frees it. */
static int print_json(cJSON *doc)
{
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (text == NULL) {
        fputs("gjkctl: out of memory formatting JSON\n", stderr);
        return EXIT_USAGE;
    }
    puts(text);
    free(text);
    return 0;
}

/* Numbers go through gjkd_json's printers (gjkd_json.h, "Numbers"): a double prints as the
 * shortest text that reads back to it bit for bit (always with a '.' or an exponent), a
 * non-finite one as null, a 64-bit counter as its exact digits. The 32-bit integers stay on
 * cJSON_AddNumberToObject, which prints every value of that range exactly as an integer. */
static void json_num(cJSON *o, const char *key, double v)
{
    cJSON_AddItemToObject(o, key, gjkd_json_double(v));
}

static void json_u64(cJSON *o, const char *key, uint64_t v)
{
    cJSON_AddItemToObject(o, key, gjkd_json_uint(v));
}

static void json_doubles(cJSON *o, const char *key, const double *v, int n)
{
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    for (int i = 0; arr != NULL && i < n; i++)
        cJSON_AddItemToArray(arr, gjkd_json_double(v[i]));
}

static void json_vec3(cJSON *o, const char *key, gjkd_vec3 v)
{
    if (!(isfinite(v.x) && isfinite(v.y) && isfinite(v.z))) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    double d[3] = {v.x, v.y, v.z};
    json_doubles(o, key, d, 3);
}

/* "robot/link/part" or "obstacle/part" into buf. */
static const char *body_a_name(const gjkd_pair *p, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s/%s", p->robot_a, p->link_a, p->part_a);
    return buf;
}

static const char *body_b_name(const gjkd_pair *p, char *buf, size_t n)
{
    if (p->obstacle_b[0] != '\0')
        snprintf(buf, n, "%s/%s", p->obstacle_b, p->part_b);
    else
        snprintf(buf, n, "%s/%s/%s", p->robot_b, p->link_b, p->part_b);
    return buf;
}

static cJSON *pair_json(const gjkd_pair *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *a = cJSON_AddObjectToObject(o, "a");
    cJSON_AddStringToObject(a, "robot", p->robot_a);
    cJSON_AddStringToObject(a, "link", p->link_a);
    cJSON_AddStringToObject(a, "part", p->part_a);
    cJSON_AddNumberToObject(a, "id", p->body_a_id);
    cJSON_AddNumberToObject(a, "part_index", p->part_a_index);
    cJSON *b = cJSON_AddObjectToObject(o, "b");
    if (p->obstacle_b[0] != '\0') {
        cJSON_AddStringToObject(b, "obstacle", p->obstacle_b);
    } else {
        cJSON_AddStringToObject(b, "robot", p->robot_b);
        cJSON_AddStringToObject(b, "link", p->link_b);
    }
    cJSON_AddStringToObject(b, "part", p->part_b);
    cJSON_AddNumberToObject(b, "id", p->body_b_id);
    cJSON_AddNumberToObject(b, "part_index", p->part_b_index);
    json_num(o, "distance", p->distance);
    cJSON_AddStringToObject(o, "status", gjkd_status_name(p->status));
    json_vec3(o, "point_a", p->point_a);
    json_vec3(o, "point_b", p->point_b);
    json_vec3(o, "local_point_a", p->local_point_a);
    json_vec3(o, "local_point_b", p->local_point_b);
    json_vec3(o, "normal", p->normal);
    cJSON_AddNumberToObject(o, "iterations", p->iterations);
    cJSON_AddNumberToObject(o, "epa_iterations", p->epa_iterations);
    json_num(o, "padding", p->padding);
    cJSON_AddNumberToObject(o, "part_pair_count", p->part_pair_count);
    if (p->gradient_a_count > 0 || p->gradient_b_count > 0) {
        /* d(distance)/dq per robot, in the order of the answer's "joint_names" */
        cJSON *g = cJSON_AddObjectToObject(o, "gradient");
        if (p->gradient_a_count > 0)
            json_doubles(g, p->robot_a, p->gradient_a, (int)p->gradient_a_count);
        if (p->gradient_b_count > 0)
            json_doubles(g, p->robot_b, p->gradient_b, (int)p->gradient_b_count);
        cJSON_AddBoolToObject(o, "subgradient", p->subgradient);
    }
    return o;
}

/* One continuous segment: "verdict", "t" (contact: the time of contact; undecided: where the
 * certificate stops; clear: the closest approach found), "clearance_lower_bound" (clear;
 * null when nothing is in reach, absent otherwise), the pair, the work counters. */
static cJSON *segment_json(size_t index, const gjkd_segment *s)
{
    cJSON *o = cJSON_CreateObject();
    json_u64(o, "segment", index);
    cJSON_AddBoolToObject(o, "evaluated", s->evaluated);
    if (!s->evaluated) /* after the first contact in FIRST_COLLISION mode */
        return o;
    cJSON_AddStringToObject(o, "verdict", gjkd_segment_verdict_name(s->verdict));
    json_num(o, "t", s->t);
    if (s->verdict == GJKD_SEGMENT_CLEAR) {
        if (s->has_clearance)
            json_num(o, "clearance_lower_bound", s->clearance_lower_bound);
        else
            cJSON_AddNullToObject(o, "clearance_lower_bound");
    }
    if (s->pair)
        cJSON_AddItemToObject(o, "pair", pair_json(s->pair));
    else
        cJSON_AddNullToObject(o, "pair");
    cJSON_AddNumberToObject(o, "pairs_checked", s->pairs_checked);
    cJSON_AddNumberToObject(o, "pairs_undecided", s->pairs_undecided);
    json_u64(o, "evaluations", s->evaluations);
    return o;
}

/* "joint_names": {ROBOT: [DOF names...]} of a result with gradients. */
static void joint_names_json(cJSON *o, const gjkd_robot_joints *j, size_t n)
{
    if (n == 0)
        return;
    cJSON *names = cJSON_AddObjectToObject(o, "joint_names");
    for (size_t i = 0; names != NULL && i < n; i++) {
        cJSON *arr = cJSON_AddArrayToObject(names, j[i].robot);
        for (size_t k = 0; arr != NULL && k < j[i].count; k++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(j[i].names[k]));
    }
}

static cJSON *state_json(const gjkd_state *s, bool with_pairs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "evaluated", s->evaluated);
    if (s->has_min_distance)
        json_num(o, "min_distance", s->min_distance);
    else
        cJSON_AddNullToObject(o, "min_distance");
    cJSON_AddBoolToObject(o, "colliding", s->colliding);
    if (s->closest)
        cJSON_AddItemToObject(o, "closest", pair_json(s->closest));
    else
        cJSON_AddNullToObject(o, "closest");
    if (with_pairs) {
        cJSON *arr = cJSON_AddArrayToObject(o, "pairs");
        for (size_t i = 0; i < s->pair_count; i++)
            cJSON_AddItemToArray(arr, pair_json(&s->pairs[i]));
    }
    cJSON_AddBoolToObject(o, "truncated", s->truncated);
    cJSON_AddNumberToObject(o, "pairs_checked", s->pairs_checked);
    cJSON_AddNumberToObject(o, "pairs_candidate", s->pairs_candidate);
    return o;
}

/* A and B name the parts realising the distance; "part pairs" is how many part pairs of the
 * body pair the row stands for (--all: those within max distance; else 1). */
static void print_pair_header(void)
{
    printf("  %-10s %-15s %-28s %-24s %-10s %-26s %s\n", "distance", "status",
           "A (robot/link/part)", "B", "part pairs", "normal (A->B)", "witness on A");
}

static void print_pair_row(const gjkd_pair *p)
{
    char a[128], b[128], n[64];
    snprintf(n, sizeof n, "(%+.3f %+.3f %+.3f)", p->normal.x, p->normal.y, p->normal.z);
    printf("  %-10.6f %-15s %-28s %-24s %-10u %-26s (%.4f %.4f %.4f)\n", p->distance,
           gjkd_status_name(p->status), body_a_name(p, a, sizeof a), body_b_name(p, b, sizeof b),
           p->part_pair_count, n, p->point_a.x, p->point_a.y, p->point_a.z);
}

/* Maps a client status to the exit status and prints its message. */
static int report_failure(gjkd_client *c, gjkd_status s)
{
    fprintf(stderr, "gjkctl: %s\n", gjkd_client_error(c));
    if (s == GJKD_TIMEOUT || s == GJKD_TRANSPORT)
        return EXIT_NO_REPLY;
    return EXIT_REFUSED;
}

/* ------------------------------------------------------------------ commands */

static int cmd_health(gjkd_client *c, const args *a)
{
    gjkd_health *h;
    gjkd_status s = gjkd_health_get(c, &h);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "state", h->serving ? "serving" : "draining");
        cJSON_AddStringToObject(o, "version", h->version);
        json_num(o, "uptime_seconds", h->uptime_seconds);
        json_u64(o, "revision", h->revision);
        cJSON_AddBoolToObject(o, "persistent", h->persistent);
        gjkd_health_destroy(&h);
        return print_json(o);
    }
    printf("state       %s\nversion     %s\nuptime      %.1f s\nrevision    %llu\n"
           "persistent  %s\n",
           h->serving ? "serving" : "draining", h->version, h->uptime_seconds,
           (unsigned long long)h->revision, h->persistent ? "yes" : "no");
    gjkd_health_destroy(&h);
    return 0;
}

static int cmd_stats(gjkd_client *c, const args *a)
{
    gjkd_stats *st;
    gjkd_status s = gjkd_stats_get(c, &st);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        json_num(o, "uptime_seconds", st->uptime_seconds);
        json_u64(o, "revision", st->revision);
        json_u64(o, "pose_revision", st->pose_revision);
        json_u64(o, "requests", st->requests);
        cJSON_AddNumberToObject(o, "in_flight", st->in_flight);
        cJSON_AddNumberToObject(o, "queued", st->queued);
        cJSON_AddNumberToObject(o, "threads", st->threads);
        cJSON_AddNumberToObject(o, "robots", st->robots);
        cJSON_AddNumberToObject(o, "obstacles", st->obstacles);
        cJSON_AddNumberToObject(o, "parts", st->parts);
        json_u64(o, "pose_updates", st->pose_updates);
        json_u64(o, "monitor_events", st->monitor_events);
        cJSON_AddNumberToObject(o, "trajectories_cached", st->trajectories_cached);
        json_u64(o, "trajectory_cache_hits", st->trajectory_cache_hits);
        json_u64(o, "trajectory_cache_misses", st->trajectory_cache_misses);
        json_u64(o, "auth_refused", st->auth_refused);
        cJSON *cmds = cJSON_AddArrayToObject(o, "commands");
        for (size_t i = 0; i < st->command_count; i++) {
            const gjkd_command_stats *cs = &st->commands[i];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", cs->name);
            json_u64(x, "calls", cs->calls);
            json_u64(x, "errors", cs->errors);
            json_num(x, "total_seconds", cs->total_seconds);
            json_num(x, "max_seconds", cs->max_seconds);
            cJSON_AddItemToArray(cmds, x);
        }
        cJSON *errs = cJSON_AddObjectToObject(o, "errors");
        for (size_t i = 0; i < st->error_count; i++)
            json_u64(errs, gjkd_status_name(st->errors[i].code), st->errors[i].count);
        cJSON *l = cJSON_AddObjectToObject(o, "limits");
        json_u64(l, "max_message_bytes", st->limits.max_message_bytes);
        cJSON_AddNumberToObject(l, "max_points_per_part", st->limits.max_points_per_part);
        cJSON_AddNumberToObject(l, "max_parts_per_body", st->limits.max_parts_per_body);
        cJSON_AddNumberToObject(l, "max_links_per_robot", st->limits.max_links_per_robot);
        cJSON_AddNumberToObject(l, "max_robots", st->limits.max_robots);
        cJSON_AddNumberToObject(l, "max_obstacles", st->limits.max_obstacles);
        cJSON_AddNumberToObject(l, "max_waypoints", st->limits.max_waypoints);
        cJSON_AddNumberToObject(l, "max_pairs_returned", st->limits.max_pairs_returned);
        cJSON_AddNumberToObject(l, "max_name_length", st->limits.max_name_length);
        cJSON_AddNumberToObject(l, "max_queued", st->limits.max_queued);
        gjkd_stats_destroy(&st);
        return print_json(o);
    }
    printf("uptime %.1f s   revision %llu   pose revision %llu   requests %llu   in flight %u   "
           "queued %u   threads %u\n",
           st->uptime_seconds, (unsigned long long)st->revision,
           (unsigned long long)st->pose_revision, (unsigned long long)st->requests, st->in_flight,
           st->queued, st->threads);
    printf("scene: %u robots, %u obstacles, %u parts   trajectory cache: %u cached, %llu hits, "
           "%llu misses\n",
           st->robots, st->obstacles, st->parts, st->trajectories_cached,
           (unsigned long long)st->trajectory_cache_hits,
           (unsigned long long)st->trajectory_cache_misses);
    printf("pose stream: %llu updates, %llu monitor events   refused handshakes (CURVE): %llu\n\n",
           (unsigned long long)st->pose_updates, (unsigned long long)st->monitor_events,
           (unsigned long long)st->auth_refused);
    printf("  %-20s %10s %8s %12s %12s\n", "command", "calls", "errors", "mean ms", "max ms");
    for (size_t i = 0; i < st->command_count; i++) {
        const gjkd_command_stats *cs = &st->commands[i];
        double mean = cs->calls ? 1e3 * cs->total_seconds / (double)cs->calls : 0.0;
        printf("  %-20s %10llu %8llu %12.3f %12.3f\n", cs->name, (unsigned long long)cs->calls,
               (unsigned long long)cs->errors, mean, 1e3 * cs->max_seconds);
    }
    if (st->error_count > 0) {
        printf("\n  %-20s %10s\n", "error code", "replies");
        for (size_t i = 0; i < st->error_count; i++)
            printf("  %-20s %10llu\n", gjkd_status_name(st->errors[i].code),
                   (unsigned long long)st->errors[i].count);
    }
    const gjkd_daemon_limits *l = &st->limits;
    printf("\nlimits: message %llu B, points/part %u, parts/body %u, links/robot %u, robots %u, "
           "obstacles %u, waypoints %u, pairs returned %u, name %u B, queued %u\n",
           (unsigned long long)l->max_message_bytes, l->max_points_per_part, l->max_parts_per_body,
           l->max_links_per_robot, l->max_robots, l->max_obstacles, l->max_waypoints,
           l->max_pairs_returned, l->max_name_length, l->max_queued);
    gjkd_stats_destroy(&st);
    return 0;
}

static int cmd_scene_export(gjkd_client *c, const args *a)
{
    Gjkd__V1__SceneSummaryRequest body = GJKD__V1__SCENE_SUMMARY_REQUEST__INIT;
    body.include_scene = true;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_SCENE_SUMMARY;
    req.scene_summary = &body;
    Gjkd__V1__Response *r;
    gjkd_status s = gjkd_client_call(c, &req, &r);
    if (s != GJKD_OK) {
        if (r)
            gjkd__v1__response__free_unpacked(r, NULL);
        return report_failure(c, s);
    }
    if (r->body_case != GJKD__V1__RESPONSE__BODY_SCENE_SUMMARY || r->scene_summary->scene == NULL) {
        gjkd__v1__response__free_unpacked(r, NULL);
        fputs("gjkctl: BAD_REPLY: the daemon returned no scene\n", stderr);
        return EXIT_REFUSED;
    }
    char *text = gjkd_json_write_scene(r->scene_summary->scene);
    gjkd__v1__response__free_unpacked(r, NULL);
    if (text == NULL) {
        fputs("gjkctl: cannot write the scene as JSON (out of memory or non-finite numbers)\n",
              stderr);
        return EXIT_REFUSED;
    }
    int rc = 0;
    if (strcmp(a->export_path, "-") == 0) {
        puts(text);
    } else {
        FILE *f = fopen(a->export_path, "w");
        if (f == NULL || fputs(text, f) < 0 || fputc('\n', f) == EOF) {
            fprintf(stderr, "gjkctl: %s: %s\n", a->export_path, strerror(errno));
            rc = EXIT_USAGE;
        }
        if (f && fclose(f) != 0 && rc == 0) {
            fprintf(stderr, "gjkctl: %s: %s\n", a->export_path, strerror(errno));
            rc = EXIT_USAGE;
        }
    }
    free(text);
    return rc;
}

static int cmd_scene(gjkd_client *c, const args *a)
{
    if (a->export_path)
        return cmd_scene_export(c, a);
    gjkd_scene_summary *ss;
    gjkd_status s = gjkd_scene_summary_get(c, &ss);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        json_u64(o, "revision", ss->revision);
        cJSON *robots = cJSON_AddArrayToObject(o, "robots");
        for (size_t i = 0; i < ss->robot_count; i++) {
            const gjkd_robot_summary *r = &ss->robots[i];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", r->name);
            cJSON_AddNumberToObject(x, "id", r->id);
            cJSON_AddItemToObject(x, "links",
                                  cJSON_CreateStringArray(r->links, (int)r->link_count));
            cJSON_AddNumberToObject(x, "parts", r->parts);
            cJSON_AddBoolToObject(x, "self_collision", r->self_collision);
            cJSON_AddItemToArray(robots, x);
        }
        cJSON *obstacles = cJSON_AddArrayToObject(o, "obstacles");
        for (size_t i = 0; i < ss->obstacle_count; i++) {
            const gjkd_obstacle_summary *ob = &ss->obstacles[i];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", ob->name);
            cJSON_AddNumberToObject(x, "id", ob->id);
            cJSON_AddNumberToObject(x, "parts", ob->parts);
            cJSON *pose = cJSON_AddObjectToObject(x, "pose");
            json_vec3(pose, "position", ob->pose.p);
            double q[4] = {ob->pose.q.w, ob->pose.q.x, ob->pose.q.y, ob->pose.q.z};
            json_doubles(pose, "quat_wxyz", q, 4);
            cJSON_AddItemToArray(obstacles, x);
        }
        cJSON_AddNumberToObject(o, "allowed_pairs", ss->allowed_pairs);
        gjkd_scene_summary_destroy(&ss);
        return print_json(o);
    }
    printf("revision %llu: %zu robots, %zu obstacles, %u allowed pairs\n",
           (unsigned long long)ss->revision, ss->robot_count, ss->obstacle_count,
           ss->allowed_pairs);
    for (size_t i = 0; i < ss->robot_count; i++) {
        const gjkd_robot_summary *r = &ss->robots[i];
        printf("  robot %-16s id %-4u %zu links, %u parts, self collision %s\n    links:", r->name,
               r->id, r->link_count, r->parts, r->self_collision ? "on" : "off");
        for (size_t k = 0; k < r->link_count; k++)
            printf(" %s", r->links[k]);
        putchar('\n');
    }
    for (size_t i = 0; i < ss->obstacle_count; i++) {
        const gjkd_obstacle_summary *ob = &ss->obstacles[i];
        printf("  obstacle %-13s id %-4u %u parts at (%.3f %.3f %.3f)\n", ob->name, ob->id,
               ob->parts, ob->pose.p.x, ob->pose.p.y, ob->pose.p.z);
    }
    gjkd_scene_summary_destroy(&ss);
    return 0;
}

/* Reads a JSON file; prints the error and returns NULL on failure. */
static int cmd_load(gjkd_client *c, const args *a)
{
    if (a->n_positional != 1)
        return usage_error("load needs one SCENE.json");
    Gjkd__V1__Scene *scene;
    if (!gjkctl_read_scene(a->positional[0], &scene))
        return EXIT_USAGE;
    gjkd_change ch;
    gjkd_status s = a->merge ? gjkd_merge_scene(c, scene, &ch) : gjkd_load_scene(c, scene, &ch);
    size_t robots = scene->n_robots, obstacles = scene->n_obstacles,
           allowed = scene->n_allowed_pairs;
    gjkd_json_scene_free(&scene);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        json_u64(o, "revision", ch.revision);
        json_u64(o, "robots", robots);
        json_u64(o, "obstacles", obstacles);
        json_u64(o, "allowed_pairs", allowed);
        cJSON_AddBoolToObject(o, "merge", a->merge);
        cJSON_AddBoolToObject(o, "replaced", ch.replaced);
        return print_json(o);
    }
    printf("%s %zu robots, %zu obstacles, %zu allowed pairs: revision %llu\n",
           a->merge ? "merged" : "loaded", robots, obstacles, allowed,
           (unsigned long long)ch.revision);
    return 0;
}

static int cmd_remove(gjkd_client *c, const args *a)
{
    if (a->n_positional != 2 ||
        (strcmp(a->positional[0], "robot") != 0 && strcmp(a->positional[0], "obstacle") != 0))
        return usage_error("usage: remove robot|obstacle NAME");
    gjkd_change ch;
    bool robot = strcmp(a->positional[0], "robot") == 0;
    gjkd_status s = robot ? gjkd_remove_robot(c, a->positional[1], &ch)
                          : gjkd_remove_obstacle(c, a->positional[1], &ch);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        json_u64(o, "revision", ch.revision);
        return print_json(o);
    }
    printf("removed %s \"%s\": revision %llu\n", a->positional[0], a->positional[1],
           (unsigned long long)ch.revision);
    return 0;
}

static int cmd_poses(gjkd_client *c, const args *a)
{
    if (a->n_positional != 1)
        return usage_error("poses needs one POSES.json");
    Gjkd__V1__SetLinkPosesRequest *req;
    if (!gjkctl_read_poses(a->positional[0], &req))
        return EXIT_USAGE;
    gjkd_status s = gjkd_set_link_poses_request(c, req);
    size_t robots = req->n_robots;
    gjkd_json_poses_free(&req);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        json_u64(o, "robots", robots);
        json_u64(o, "revision", gjkd_client_revision(c));
        return print_json(o);
    }
    printf("link poses set for %zu robot%s\n", robots, robots == 1 ? "" : "s");
    return 0;
}

static gjkd_query_options query_options(const args *a)
{
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.has_max_distance = a->has_max_distance;
    o.max_distance = a->max_distance;
    o.mode = a->first_collision ? GJKD_QUERY_FIRST_COLLISION
             : a->all           ? GJKD_QUERY_ALL_WITHIN
                                : GJKD_QUERY_CLOSEST;
    o.no_penetration_depth = a->no_depth;
    o.per_part = a->per_part;
    o.robot = a->robot;
    o.gradients = a->gradients;
    o.continuous = a->continuous;
    o.continuous_time_tolerance = a->continuous_tolerance;
    o.continuous_max_evaluations = a->continuous_budget;
    return o;
}

/* JOINTS.json, a JointState: {"name": [...], "position": [...]} ("name" optional: then the
 * full vector in DOF order). */
static int cmd_joints(gjkd_client *c, const args *a)
{
    if (a->n_positional != 2)
        return usage_error("usage: joints ROBOT JOINTS.json");
    Gjkd__V1__SetLinkPosesRequest *req;
    if (!gjkctl_read_joint_state(a->positional[1], a->positional[0], &req))
        return EXIT_USAGE;
    size_t n = req->robots[0]->joint_positions->n_positions;
    gjkd_status s = gjkd_set_link_poses_request(c, req);
    gjkd_json_poses_free(&req);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "robot", a->positional[0]);
        json_u64(o, "joints", n);
        json_u64(o, "revision", gjkd_client_revision(c));
        return print_json(o);
    }
    printf("%zu joint position%s set for %s\n", n, n == 1 ? "" : "s", a->positional[0]);
    return 0;
}

static int cmd_query(gjkd_client *c, const args *a)
{
    if (a->n_positional != 0)
        return usage_error("query takes no file");
    gjkd_query_options o = query_options(a);
    gjkd_state *st;
    gjkd_status s = gjkd_query_state(c, &o, &st);
    if (s != GJKD_OK)
        return report_failure(c, s);
    if (a->json) {
        cJSON *doc = state_json(st, true);
        json_u64(doc, "revision", st->revision);
        joint_names_json(doc, st->joint_names, st->joint_names_count);
        gjkd_state_destroy(&st);
        return print_json(doc);
    }
    printf("revision %llu   pairs checked %u (broad-phase candidates %u)   colliding: %s\n",
           (unsigned long long)st->revision, st->pairs_checked, st->pairs_candidate,
           st->colliding ? "YES" : "no");
    if (!st->has_min_distance && a->has_max_distance) {
        printf("no pair within max distance %.4f m\n", a->max_distance);
    } else if (!st->has_min_distance) {
        printf("no pair to check\n");
    } else {
        printf("min distance %.6f m\n", st->min_distance);
        print_pair_header();
        if (st->pair_count == 0 && st->closest)
            print_pair_row(st->closest);
        for (size_t i = 0; i < st->pair_count; i++)
            print_pair_row(&st->pairs[i]);
        if (st->truncated)
            printf("  (more pairs qualified: the closest were kept)\n");
    }
    gjkd_state_destroy(&st);
    return 0;
}

/* ------------------------------------------------------------------ clearance plot */

/* Writes the clearance profile: minimum distance per waypoint, the max-distance line, the
 * zero line, colliding waypoints marked, axes with ticks and labels (after Fig. 6 of Gilbert,
 * Johnson & Keerthi 1988). Waypoints with no pair within max distance are drawn on the
 * max-distance line as hollow markers ("at least this far"). */
static bool write_plot(const char *path, const gjkd_trajectory *t, bool has_max, double max_d,
                       const char *title)
{
    const double W = 900, H = 420, L = 80, R = 30, T = 50, B = 60;
    const double pw = W - L - R, ph = H - T - B;
    size_t n = t->waypoint_count;
    double lo = 0.0, hi = has_max ? max_d : 0.0;
    for (size_t i = 0; i < n; i++) {
        const gjkd_state *s = &t->waypoints[i];
        if (s->evaluated && s->has_min_distance) {
            lo = fmin(lo, s->min_distance);
            hi = fmax(hi, s->min_distance);
        }
    }
    if (hi - lo < 1e-9)
        hi = lo + 1.0;
    double pad = 0.06 * (hi - lo);
    lo -= pad;
    hi += pad;
    /* A tick step of 1, 2 or 5 times a power of ten, about 6 ticks. */
    double raw = (hi - lo) / 6.0, mag = pow(10.0, floor(log10(raw))), step = mag;
    if (raw / mag > 5.0)
        step = 10.0 * mag;
    else if (raw / mag > 2.0)
        step = 5.0 * mag;
    else if (raw / mag > 1.0)
        step = 2.0 * mag;

    FILE *f = fopen(path, "w");
    if (f == NULL)
        return false;
#define X(i) (L + (n > 1 ? pw * (double)(i) / (double)(n - 1) : pw / 2.0))
#define Y(d) (T + ph * (hi - (d)) / (hi - lo))
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f,
            "<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">Clearance "
            "profile: %s (%zu waypoints, %u colliding)</text>\n",
            W / 2, title, n, t->colliding_waypoints);
    /* Grid and y ticks. */
    for (double v = ceil(lo / step) * step; v <= hi + 1e-12; v += step) {
        double y = Y(v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e6e6e6\"/>\n",
                L, y, L + pw, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n", L - 6, y + 4,
                fabs(v) < step * 1e-6 ? 0.0 : v);
    }
    /* x ticks: about 10. */
    size_t xstep = n > 10 ? (n + 9) / 10 : 1;
    for (size_t i = 0; i < n; i += xstep) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
                X(i), T + ph, X(i), T + ph + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n", X(i),
                T + ph + 18, i);
    }
    /* Axes and labels. */
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"black\"/>\n",
            L, T, pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">waypoint</text>\n", L + pw / 2,
            H - 18);
    fprintf(f,
            "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
            "%.1f)\">minimum distance (m)</text>\n",
            T + ph / 2, T + ph / 2);
    /* Zero line (contact) and max-distance line. */
    if (lo < 0.0 && hi > 0.0)
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" "
                "stroke-width=\"1\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" "
                "text-anchor=\"end\">contact</text>\n",
                L, Y(0.0), L + pw, Y(0.0), L + pw - 4, Y(0.0) - 4);
    if (has_max)
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2a7\" "
                "stroke-dasharray=\"6 4\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#2a7\" "
                "text-anchor=\"end\">max distance %.3g m</text>\n",
                L, Y(max_d), L + pw, Y(max_d), L + pw - 4, Y(max_d) - 4, max_d);
    /* The profile: a polyline through evaluated waypoints with a distance. */
    fprintf(f, "<polyline fill=\"none\" stroke=\"#246\" stroke-width=\"1.5\" points=\"");
    for (size_t i = 0; i < n; i++) {
        const gjkd_state *s = &t->waypoints[i];
        if (s->evaluated && s->has_min_distance)
            fprintf(f, "%.1f,%.1f ", X(i), Y(s->min_distance));
        else if (s->evaluated && has_max)
            fprintf(f, "%.1f,%.1f ", X(i), Y(max_d));
    }
    fprintf(f, "\"/>\n");
    for (size_t i = 0; i < n; i++) {
        const gjkd_state *s = &t->waypoints[i];
        if (!s->evaluated)
            continue;
        if (!s->has_min_distance) {
            if (has_max)
                fprintf(f,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"white\" "
                        "stroke=\"#246\"><title>waypoint %zu: beyond %.3g m</title></circle>\n",
                        X(i), Y(max_d), i, max_d);
            continue;
        }
        if (s->colliding)
            fprintf(f,
                    "<path d=\"M%.1f %.1fl5 5m-5 0l5 -5\" transform=\"translate(-2.5 -2.5)\" "
                    "stroke=\"#c00\" stroke-width=\"2\"><title>waypoint %zu: %.4g m "
                    "(colliding)</title></path>\n",
                    X(i), Y(s->min_distance), i, s->min_distance);
        else
            fprintf(f,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#246\"><title>waypoint "
                    "%zu: %.4g m</title></circle>\n",
                    X(i), Y(s->min_distance), i, s->min_distance);
    }
    /* Continuous segments: each clear segment's certified clearance bound as a step under
     * the profile, each contact at its time on the contact line, undecided ones as a ring. */
    for (size_t i = 0; i < t->segment_count && i + 1 < n; i++) {
        const gjkd_segment *sg = &t->segments[i];
        if (sg->verdict == GJKD_SEGMENT_CLEAR && sg->has_clearance)
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e80\" "
                    "stroke-width=\"2\"><title>segment %zu: clear, clearance &gt;= %.4g "
                    "m</title></line>\n",
                    X(i), Y(sg->clearance_lower_bound), X(i + 1), Y(sg->clearance_lower_bound), i,
                    sg->clearance_lower_bound);
        else if (sg->verdict == GJKD_SEGMENT_CONTACT)
            fprintf(f,
                    "<path d=\"M%.1f %.1fl-4 8h8z\" fill=\"#c00\"><title>segment %zu: contact "
                    "at t = %.6g</title></path>\n",
                    X(i) + (X(i + 1) - X(i)) * sg->t, Y(0.0), i, sg->t);
        else if (sg->verdict == GJKD_SEGMENT_UNDECIDED)
            fprintf(f,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#e80\" "
                    "stroke-width=\"2\"><title>segment %zu: undecided after t = "
                    "%.6g</title></circle>\n",
                    X(i) + (X(i + 1) - X(i)) * sg->t, Y(0.0), i, sg->t);
    }
    /* Legend, between the title and the plot. */
    double lx = L, ly = T - 12;
    if (t->segment_count > 0)
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e80\" "
                "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">segment clearance bound</text>"
                "<path d=\"M%.1f %.1fl-4 8h8z\" fill=\"#c00\"/><text x=\"%.1f\" "
                "y=\"%.1f\">segment contact</text>\n",
                lx + 440, ly, lx + 456, ly, lx + 462, ly + 4, lx + 620, ly - 4, lx + 630, ly + 4);
    fprintf(f,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#246\"/><text x=\"%.1f\" "
            "y=\"%.1f\">minimum distance</text>\n",
            lx, ly, lx + 8, ly + 4);
    fprintf(f,
            "<path d=\"M%.1f %.1fl5 5m-5 0l5 -5\" stroke=\"#c00\" stroke-width=\"2\"/><text "
            "x=\"%.1f\" y=\"%.1f\">colliding waypoint</text>\n",
            lx + 125, ly - 2.5, lx + 136, ly + 4);
    if (has_max)
        fprintf(f,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"white\" stroke=\"#246\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">no pair within max distance</text>\n",
                lx + 265, ly, lx + 273, ly + 4);
#undef X
#undef Y
    fprintf(f, "</svg>\n");
    return fclose(f) == 0;
}

#ifdef GJKCTL_VIEWER
static int cmd_view(gjkd_client *c, const args *a)
{
    if (a->n_positional != 0)
        return usage_error("view takes no positional argument (--trajectory TRAJ.json)");
    if (a->out == NULL)
        return usage_error("view needs --out PAGE.html");
    return gjkctl_view(c, a->trajectory, a->poses, a->out, a->has_max_distance, a->max_distance);
}

static int cmd_trace(gjkd_client *c, const args *a)
{
    if (a->n_positional != 2)
        return usage_error("trace needs two bodies A B (robot/link[/part] or obstacle[/part])");
    if (a->out == NULL)
        return usage_error("trace needs --out PAGE.html");
    return gjkctl_trace(c, a->positional[0], a->positional[1], a->trajectory, a->has_waypoint,
                        a->waypoint, a->poses, a->out);
}
#endif

static int cmd_trajectory(gjkd_client *c, const args *a)
{
    if (a->n_positional != 1)
        return usage_error("trajectory needs one TRAJ.json");
    Gjkd__V1__TrajectoryQueryRequest *req;
    if (!gjkctl_read_trajectory(a->positional[0], &req))
        return EXIT_USAGE;
    if (a->name) {
        /* Every string of a parsed message is owned (gjkd_json.h), an absent name too. */
        char *name = strdup(a->name);
        if (name == NULL) {
            gjkd_json_trajectory_free(&req);
            fputs("gjkctl: out of memory\n", stderr);
            return EXIT_USAGE;
        }
        free(req->name);
        req->name = name;
    }
    char title[256];
    snprintf(title, sizeof title, "%s%s%s", req->robot, req->name[0] ? " / " : "", req->name);
    gjkd_query_options o = query_options(a);
    o.robot = NULL;
    gjkd_trajectory *t;
    gjkd_status s = gjkd_query_trajectory_request(c, &o, req, &t);
    gjkd_json_trajectory_free(&req);
    if (s != GJKD_OK)
        return report_failure(c, s);
    int rc = 0;
    if (a->plot && !write_plot(a->plot, t, a->has_max_distance, a->max_distance, title)) {
        fprintf(stderr, "gjkctl: cannot write %s: %s\n", a->plot, strerror(errno));
        rc = EXIT_USAGE;
    }
    if (a->json) {
        cJSON *o2 = cJSON_CreateObject();
        json_u64(o2, "revision", t->revision);
        if (t->has_min_distance)
            json_num(o2, "min_distance", t->min_distance);
        else
            cJSON_AddNullToObject(o2, "min_distance");
        cJSON_AddNumberToObject(o2, "min_waypoint", t->min_waypoint);
        cJSON_AddNumberToObject(o2, "first_collision", t->first_collision);
        cJSON_AddNumberToObject(o2, "colliding_waypoints", t->colliding_waypoints);
        cJSON_AddBoolToObject(o2, "cache_hit", t->cache_hit);
        joint_names_json(o2, t->joint_names, t->joint_names_count);
        cJSON *wps = cJSON_AddArrayToObject(o2, "waypoints");
        for (size_t i = 0; i < t->waypoint_count; i++)
            cJSON_AddItemToArray(wps, state_json(&t->waypoints[i], a->all));
        if (a->continuous) {
            cJSON_AddNumberToObject(o2, "first_contact_segment", t->first_contact_segment);
            cJSON_AddNumberToObject(o2, "undecided_segments", t->undecided_segments);
            cJSON *segs = cJSON_AddArrayToObject(o2, "segments");
            for (size_t i = 0; i < t->segment_count; i++)
                cJSON_AddItemToArray(segs, segment_json(i, &t->segments[i]));
        }
        gjkd_trajectory_destroy(&t);
        int prc = print_json(o2);
        return rc ? rc : prc;
    }
    printf("%-5s %-12s %-4s %-28s %-24s %s\n", "wp", "min dist (m)", "hit", "A (robot/link/part)",
           "B", "part pairs");
    for (size_t i = 0; i < t->waypoint_count; i++) {
        const gjkd_state *st = &t->waypoints[i];
        char an[128], bn[128];
        if (!st->evaluated)
            printf("%-5zu %-12s\n", i, "skipped");
        else if (!st->has_min_distance || st->closest == NULL)
            printf("%-5zu %-12s\n", i, "beyond");
        else
            printf("%-5zu %-12.6f %-4s %-28s %-24s %u\n", i, st->min_distance,
                   st->colliding ? "X" : "", body_a_name(st->closest, an, sizeof an),
                   body_b_name(st->closest, bn, sizeof bn), st->closest->part_pair_count);
    }
    printf("\n%zu waypoints, revision %llu%s: ", t->waypoint_count, (unsigned long long)t->revision,
           t->cache_hit ? ", warm (named cache hit)" : "");
    if (t->has_min_distance)
        printf("minimum %.6f m at waypoint %u; ", t->min_distance, t->min_waypoint);
    else
        printf("no pair within max distance; ");
    if (t->first_collision >= 0)
        printf("%u colliding, the first at waypoint %d\n", t->colliding_waypoints,
               t->first_collision);
    else
        printf("no collision\n");
    if (a->continuous) {
        printf("\n%-5s %-10s %-14s %-16s %-28s %s\n", "seg", "verdict", "t", "clearance >= (m)",
               "A (robot/link/part)", "B");
        for (size_t i = 0; i < t->segment_count; i++) {
            const gjkd_segment *sg = &t->segments[i];
            char an[128] = "", bn[128] = "", bound[32] = "";
            if (!sg->evaluated) {
                printf("%-5zu %-10s\n", i, "skipped");
                continue;
            }
            if (sg->pair) {
                body_a_name(sg->pair, an, sizeof an);
                body_b_name(sg->pair, bn, sizeof bn);
            }
            if (sg->verdict == GJKD_SEGMENT_CLEAR && sg->has_clearance)
                snprintf(bound, sizeof bound, "%.6f", sg->clearance_lower_bound);
            else if (sg->verdict == GJKD_SEGMENT_CLEAR)
                snprintf(bound, sizeof bound, "beyond");
            printf("%-5zu %-10s %-14.9f %-16s %-28s %s\n", i,
                   gjkd_segment_verdict_name(sg->verdict), sg->t, bound, an, bn);
        }
        printf("\n%zu segments: ", t->segment_count);
        if (t->first_contact_segment >= 0)
            printf("first contact in segment %d at t = %.9f; ", t->first_contact_segment,
                   t->segments[t->first_contact_segment].t);
        else
            printf("no contact; ");
        printf("%u undecided\n", t->undecided_segments);
    }
    if (a->plot && rc == 0)
        printf("clearance profile written to %s\n", a->plot);
    gjkd_trajectory_destroy(&t);
    return rc;
}

/* ------------------------------------------------------------------ bench */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

/* One kind of run (cold or warm): per repeat the daemon's handler time and the round trip,
 * and the counts of the last run (every run of a kind answers the same). */
typedef struct bench_run {
    double *handler, *round_trip; /* seconds, one per repeat */
    size_t n;
    uint64_t pairs_checked, pairs_candidate, pairs_reported, waypoints_evaluated;
    uint32_t colliding_waypoints;
    bool cache_hit;
} bench_run;

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs the query `repeat` times into *run; 0, or the exit status after printing the failure. */
static int bench_repeat(gjkd_client *c, const gjkd_query_options *o,
                        const Gjkd__V1__TrajectoryQueryRequest *req, size_t repeat, bench_run *run)
{
    for (size_t i = 0; i < repeat; i++) {
        gjkd_trajectory_columns *t;
        double t0 = now_seconds();
        gjkd_status s = gjkd_query_trajectory_columns(c, o, req, &t);
        double t1 = now_seconds();
        if (s != GJKD_OK)
            return report_failure(c, s);
        run->handler[run->n] = t->handler_seconds;
        run->round_trip[run->n++] = t1 - t0;
        run->pairs_checked = run->pairs_candidate = run->waypoints_evaluated = 0;
        for (size_t w = 0; w < t->waypoint_count; w++) {
            run->pairs_checked += t->pairs_checked[w];
            run->pairs_candidate += t->pairs_candidate[w];
            run->waypoints_evaluated += (t->flags[w] & GJKD_WAYPOINT_EVALUATED) != 0;
        }
        run->pairs_reported = t->pair_count;
        run->colliding_waypoints = t->colliding_waypoints;
        run->cache_hit = t->cache_hit;
        gjkd_trajectory_columns_destroy(&t);
    }
    return 0;
}

/* The figures of a run: medians and fastest runs, milliseconds. */
typedef struct bench_figures {
    double handler_median, handler_min, round_trip_median, round_trip_min, ratio, us_per_pair;
} bench_figures;

static bench_figures bench_figures_of(bench_run *r)
{
    bench_figures f;
    f.handler_median = 1e3 * median_of(r->handler, r->n);
    f.handler_min = 1e3 * r->handler[0]; /* sorted by median_of */
    f.round_trip_median = 1e3 * median_of(r->round_trip, r->n);
    f.round_trip_min = 1e3 * r->round_trip[0];
    f.ratio = f.handler_median > 0 ? f.round_trip_median / f.handler_median : 0.0;
    f.us_per_pair = r->pairs_checked ? 1e3 * f.handler_median / (double)r->pairs_checked : 0.0;
    return f;
}

static cJSON *bench_run_json(const bench_run *r, const bench_figures *f)
{
    cJSON *o = cJSON_CreateObject();
    json_num(o, "handler_ms_median", f->handler_median);
    json_num(o, "handler_ms_min", f->handler_min);
    json_num(o, "round_trip_ms_median", f->round_trip_median);
    json_num(o, "round_trip_ms_min", f->round_trip_min);
    json_num(o, "round_trip_over_handler", f->ratio);
    json_u64(o, "pairs_checked", r->pairs_checked);
    json_u64(o, "pairs_candidate", r->pairs_candidate);
    json_u64(o, "pairs_reported", r->pairs_reported);
    json_num(o, "handler_us_per_pair_checked", f->us_per_pair);
    json_u64(o, "waypoints_evaluated", r->waypoints_evaluated);
    cJSON_AddNumberToObject(o, "colliding_waypoints", r->colliding_waypoints);
    cJSON_AddBoolToObject(o, "cache_hit", r->cache_hit);
    return o;
}

static int cmd_bench(gjkd_client *c, const args *a)
{
    if (a->n_positional != 2)
        return usage_error("bench needs SCENE.json and TRAJ.json");
    Gjkd__V1__Scene *scene;
    if (!gjkctl_read_scene(a->positional[0], &scene))
        return EXIT_USAGE;
    Gjkd__V1__TrajectoryQueryRequest *req;
    if (!gjkctl_read_trajectory(a->positional[1], &req)) {
        gjkd_json_scene_free(&scene);
        return EXIT_USAGE;
    }
    size_t parts = 0;
    for (size_t i = 0; i < scene->n_robots; i++)
        for (size_t l = 0; l < scene->robots[i]->n_links; l++)
            parts += scene->robots[i]->links[l]->n_parts;
    for (size_t i = 0; i < scene->n_obstacles; i++)
        parts += scene->obstacles[i]->n_parts;
    size_t robots = scene->n_robots, obstacles = scene->n_obstacles;
    gjkd_change ch;
    gjkd_status s = gjkd_load_scene(c, scene, &ch);
    gjkd_json_scene_free(&scene);
    size_t repeat = a->repeat ? (size_t)a->repeat : 20;
    bench_run cold = {0}, warm = {0};
    double *buf = calloc(4 * repeat, sizeof *buf);
    int rc = 0;
    if (s != GJKD_OK || buf == NULL) {
        rc = buf == NULL ? (fputs("gjkctl: out of memory\n", stderr), EXIT_USAGE)
                         : report_failure(c, s);
        goto done;
    }
    cold.handler = buf;
    cold.round_trip = buf + repeat;
    warm.handler = buf + 2 * repeat;
    warm.round_trip = buf + 3 * repeat;
    gjkd_query_options o = query_options(a);
    o.robot = NULL;
    /* cold: no named cache (the trajectory's own name is dropped) */
    char *own = req->name;
    req->name = "";
    rc = bench_repeat(c, &o, req, repeat, &cold);
    /* warm: a name of this run, filled once, then the same waypoints again */
    char name[64];
    snprintf(name, sizeof name, "gjkctl-bench-%ld-%llu", (long)getpid(),
             (unsigned long long)ch.revision);
    req->name = name;
    bench_run fill = {.handler = warm.handler, .round_trip = warm.round_trip}; /* not kept */
    if (rc == 0)
        rc = bench_repeat(c, &o, req, 1, &fill);
    if (rc == 0)
        rc = bench_repeat(c, &o, req, repeat, &warm);
    req->name = own;
    if (rc != 0)
        goto done;
    size_t waypoints = req->waypoint_count ? req->waypoint_count : req->n_waypoints;
    cJSON *doc = cJSON_CreateObject();
    cJSON *sc = cJSON_AddObjectToObject(doc, "scene");
    json_u64(sc, "revision", ch.revision);
    json_u64(sc, "robots", robots);
    json_u64(sc, "obstacles", obstacles);
    json_u64(sc, "parts", parts);
    cJSON_AddStringToObject(doc, "robot", req->robot);
    json_u64(doc, "waypoints", waypoints);
    cJSON_AddStringToObject(doc, "mode",
                            a->first_collision ? "first_collision"
                            : a->all           ? "all"
                                               : "closest");
    if (a->has_max_distance)
        json_num(doc, "max_distance", a->max_distance);
    else
        cJSON_AddNullToObject(doc, "max_distance");
    json_u64(doc, "repeat", repeat);
    bench_figures fig[2] = {bench_figures_of(&cold), bench_figures_of(&warm)};
    cJSON_AddItemToObject(doc, "cold", bench_run_json(&cold, &fig[0]));
    cJSON_AddItemToObject(doc, "warm", bench_run_json(&warm, &fig[1]));
    if (a->json) {
        rc = print_json(doc);
        goto done;
    }
    printf("scene %s: %zu robots, %zu obstacles, %zu parts (revision %llu)\n", a->positional[0],
           robots, obstacles, parts, (unsigned long long)ch.revision);
    printf("trajectory %s: robot %s, %zu waypoints, mode %s", a->positional[1], req->robot,
           waypoints,
           a->first_collision ? "first collision"
           : a->all           ? "all within"
                              : "closest");
    if (a->has_max_distance)
        printf(", max distance %g m", a->max_distance);
    printf("; %zu repeats\n\n", repeat);
    printf("%-5s %-20s %-20s %-9s %-9s %-9s %-9s %s\n", "", "handler ms", "round trip ms", "rt/hdl",
           "checked", "reported", "us/pair", "cache");
    printf("%-5s %-20s %-20s %-9s %-9s %-9s %-9s %s\n", "", "median    fastest",
           "median    fastest", "", "pairs", "pairs", "checked", "");
    const char *kinds[2] = {"cold", "warm"};
    const bench_run *runs[2] = {&cold, &warm};
    for (int k = 0; k < 2; k++)
        printf("%-5s %-9.3f %-10.3f %-9.3f %-10.3f %-9.2f %-9llu %-9llu %-9.3f %s\n", kinds[k],
               fig[k].handler_median, fig[k].handler_min, fig[k].round_trip_median,
               fig[k].round_trip_min, fig[k].ratio, (unsigned long long)runs[k]->pairs_checked,
               (unsigned long long)runs[k]->pairs_reported, fig[k].us_per_pair,
               runs[k]->cache_hit ? "hit" : "none");
    printf("\nhandler: the daemon's time on the request (Response.handler_seconds); round trip: "
           "this client's call (request, transport, reply decoded into arrays)\n");
    cJSON_Delete(doc);
done:
    free(buf);
    gjkd_json_trajectory_free(&req);
    return rc;
}

/* ------------------------------------------------------------------ keygen */

/* Creates path (which must not exist) with mode and writes text. */
static bool write_new_file(const char *path, mode_t mode, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        fprintf(stderr, "gjkctl: cannot create \"%s\": %s\n", path, strerror(errno));
        return false;
    }
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n;
    if (close(fd) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "gjkctl: cannot write \"%s\": %s\n", path, strerror(errno));
    return ok;
}

/* gjkctl keygen NAME: NAME.key (secret, 0600) and NAME.pub; refuses to overwrite. */
static int cmd_keygen(const args *a)
{
    if (a->n_positional != 1)
        return usage_error("keygen needs one NAME (writes NAME.key and NAME.pub)");
    char public_key[41], secret_key[41];
    if (zmq_curve_keypair(public_key, secret_key) != 0) {
        fprintf(stderr, "gjkctl: zmq_curve_keypair: %s (libzmq without CURVE?)\n",
                zmq_strerror(zmq_errno()));
        return EXIT_USAGE;
    }
    const char *name = a->positional[0];
    size_t n = strlen(name) + 5;
    char *key_path = malloc(n), *pub_path = malloc(n);
    int rc = EXIT_USAGE;
    if (key_path != NULL && pub_path != NULL) {
        snprintf(key_path, n, "%s.key", name);
        snprintf(pub_path, n, "%s.pub", name);
        char text[128];
        snprintf(text, sizeof text, "# gjkd CURVE secret key (Z85); keep private\n%s\n",
                 secret_key);
        if (write_new_file(key_path, 0600, text)) {
            snprintf(text, sizeof text, "%s\n", public_key);
            if (write_new_file(pub_path, 0644, text)) {
                rc = 0;
                if (a->json)
                    printf("{\"public_key\": \"%s\", \"secret_key_file\": \"%s\", "
                           "\"public_key_file\": \"%s\"}\n",
                           public_key, key_path, pub_path);
                else
                    printf("public key %s\nwritten: %s (secret, 0600), %s\n", public_key, key_path,
                           pub_path);
            } else {
                unlink(key_path); /* no half pair */
            }
        }
    }
    memset(secret_key, 0, sizeof secret_key);
    free(key_path);
    free(pub_path);
    return rc;
}

/* ------------------------------------------------------------------ main */

/* ------------------------------------------------------------------ URDF import */

static const char *joint_type_name(Gjkd__V1__JointType t)
{
    switch (t) {
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED:
        return "fixed";
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE:
        return "revolute";
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_CONTINUOUS:
        return "continuous";
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC:
        return "prismatic";
    default:
        return "unspecified";
    }
}

/* Hull vertices of a part (0 for primitives). */
static size_t part_vertices(const Gjkd__V1__Part *p)
{
    const Gjkd__V1__Shape *s = p->shape;
    if (s && s->kind_case == GJKD__V1__SHAPE__KIND_CONVEX)
        return s->convex->n_xyz / 3;
    if (s && s->kind_case == GJKD__V1__SHAPE__KIND_HULL)
        return s->hull->n_xyz / 3;
    return 0;
}

static const char *part_kind(const Gjkd__V1__Part *p)
{
    switch (p->shape ? p->shape->kind_case : GJKD__V1__SHAPE__KIND__NOT_SET) {
    case GJKD__V1__SHAPE__KIND_BOX:
        return "box";
    case GJKD__V1__SHAPE__KIND_SPHERE:
        return "sphere";
    case GJKD__V1__SHAPE__KIND_CYLINDER:
        return "cylinder";
    case GJKD__V1__SHAPE__KIND_CAPSULE:
        return "capsule";
    case GJKD__V1__SHAPE__KIND_CONE:
        return "cone";
    case GJKD__V1__SHAPE__KIND_ELLIPSOID:
        return "ellipsoid";
    case GJKD__V1__SHAPE__KIND_POINT:
        return "point";
    case GJKD__V1__SHAPE__KIND_HULL:
        return "hull";
    case GJKD__V1__SHAPE__KIND_CONVEX:
        return "convex";
    default:
        return "none";
    }
}

/* Runs the import of a->positional[0] with the command's options; prints the error. */
static bool import_urdf(const args *a, gjkd_urdf_result *res, double *ms)
{
    if (a->n_positional != 1) {
        usage_error("%s needs one ROBOT.urdf", a->command);
        return false;
    }
    gjkd_urdf_options o;
    gjkd_urdf_options_init(&o);
    o.srdf_path = a->srdf;
    o.name = a->name;
    o.package_paths = a->package_paths;
    o.package_path_count = (size_t)a->n_package_paths;
    o.disable_adjacent = !a->no_adjacent;
    char err[GJKD_URDF_ERROR_SIZE];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool ok = gjkd_urdf_import(a->positional[0], &o, res, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    if (!ok)
        fprintf(stderr, "gjkctl: %s\n", err);
    return ok;
}

static cJSON *urdf_summary_json(const gjkd_urdf_result *res, double ms)
{
    const Gjkd__V1__Robot *r = res->robot;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "robot", r->name);
    cJSON *links = cJSON_AddArrayToObject(o, "links");
    size_t parts = 0;
    for (size_t i = 0; i < r->n_links; i++) {
        const Gjkd__V1__Link *l = r->links[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "name", l->name);
        cJSON *ps = cJSON_AddArrayToObject(x, "parts");
        for (size_t k = 0; k < l->n_parts; k++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "name", l->parts[k]->name);
            cJSON_AddStringToObject(p, "type", part_kind(l->parts[k]));
            json_u64(p, "hull_vertices", part_vertices(l->parts[k]));
            cJSON_AddItemToArray(ps, p);
        }
        parts += l->n_parts;
        cJSON_AddItemToArray(links, x);
    }
    cJSON *joints = cJSON_AddArrayToObject(o, "joints");
    cJSON *dof = cJSON_AddArrayToObject(o, "dof");
    for (size_t i = 0; i < r->n_joints; i++) {
        const Gjkd__V1__Joint *j = r->joints[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "name", j->name);
        cJSON_AddStringToObject(x, "type", joint_type_name(j->type));
        cJSON_AddStringToObject(x, "parent", j->parent);
        cJSON_AddStringToObject(x, "child", j->child);
        if (j->limits) {
            json_num(x, "lower", j->limits->lower);
            json_num(x, "upper", j->limits->upper);
        }
        if (j->mimic) {
            cJSON *m = cJSON_AddObjectToObject(x, "mimic");
            cJSON_AddStringToObject(m, "joint", j->mimic->joint);
            json_num(m, "multiplier", j->mimic->multiplier);
            json_num(m, "offset", j->mimic->offset);
        } else if (j->type != GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED) {
            cJSON_AddItemToArray(dof, cJSON_CreateString(j->name));
        }
        cJSON_AddItemToArray(joints, x);
    }
    json_u64(o, "parts", parts);
    json_u64(o, "disabled_pairs", r->n_disabled_pairs);
    json_u64(o, "mesh_files", res->mesh_files);
    json_u64(o, "mesh_vertices", res->mesh_vertices);
    json_u64(o, "hull_vertices", res->hull_vertices);
    json_num(o, "import_ms", ms);
    cJSON *notes = cJSON_AddArrayToObject(o, "notes");
    for (size_t i = 0; i < res->note_count; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(res->notes[i]));
    return o;
}

static void print_urdf_summary(const gjkd_urdf_result *res, double ms)
{
    const Gjkd__V1__Robot *r = res->robot;
    size_t parts = 0;
    for (size_t i = 0; i < r->n_links; i++)
        parts += r->links[i]->n_parts;
    printf("robot %s: %zu links, %zu joints, %u DOF, %zu parts, %zu disabled pairs\n", r->name,
           r->n_links, r->n_joints, res->dof, parts, r->n_disabled_pairs);
    printf("meshes: %u files, %llu vertices read -> %llu hull vertices sent; imported in "
           "%.1f ms\n",
           res->mesh_files, (unsigned long long)res->mesh_vertices,
           (unsigned long long)res->hull_vertices, ms);
    printf("links:\n");
    for (size_t i = 0; i < r->n_links; i++) {
        const Gjkd__V1__Link *l = r->links[i];
        printf("  %-24s %zu part%s", l->name, l->n_parts, l->n_parts == 1 ? " " : "s");
        for (size_t k = 0; k < l->n_parts; k++) {
            size_t v = part_vertices(l->parts[k]);
            if (v)
                printf(" %s(%zu)", part_kind(l->parts[k]), v);
            else
                printf(" %s", part_kind(l->parts[k]));
        }
        putchar('\n');
    }
    printf("joints:\n");
    for (size_t i = 0; i < r->n_joints; i++) {
        const Gjkd__V1__Joint *j = r->joints[i];
        printf("  %-24s %-10s %s -> %s", j->name, joint_type_name(j->type), j->parent, j->child);
        char x[GJKD_JSON_NUMBER_SIZE], y[GJKD_JSON_NUMBER_SIZE];
        if (j->limits) {
            gjkd_json_format_double(j->limits->lower, x);
            gjkd_json_format_double(j->limits->upper, y);
            printf("  [%s, %s]", x, y);
        }
        if (j->mimic) {
            gjkd_json_format_double(j->mimic->multiplier, x);
            gjkd_json_format_double(j->mimic->offset, y);
            printf("  mimic %s * %s + %s", x, j->mimic->joint, y);
        }
        putchar('\n');
    }
    if (res->note_count)
        printf("notes:\n");
    for (size_t i = 0; i < res->note_count; i++)
        printf("  %s\n", res->notes[i]);
}

/* gjkctl load-urdf ROBOT.urdf: import, print, put (c is NULL with --dry-run). */
static int cmd_load_urdf(gjkd_client *c, const args *a)
{
    gjkd_urdf_result res;
    double ms;
    if (!import_urdf(a, &res, &ms))
        return EXIT_USAGE;
    gjkd_change ch = {0};
    if (!a->dry_run) {
        gjkd_status s = gjkd_put_robot(c, res.robot, &ch);
        if (s != GJKD_OK) {
            gjkd_urdf_result_free(&res);
            return report_failure(c, s);
        }
    }
    if (a->json) {
        cJSON *o = urdf_summary_json(&res, ms);
        cJSON_AddBoolToObject(o, "dry_run", a->dry_run);
        if (!a->dry_run) {
            json_u64(o, "revision", ch.revision);
            json_u64(o, "id", ch.id);
            cJSON_AddBoolToObject(o, "replaced", ch.replaced);
        }
        gjkd_urdf_result_free(&res);
        return print_json(o);
    }
    print_urdf_summary(&res, ms);
    if (a->dry_run)
        printf("dry run: nothing sent\n");
    else
        printf("put robot %s: id %u, revision %llu%s\n", res.robot->name, ch.id,
               (unsigned long long)ch.revision, ch.replaced ? " (replaced)" : "");
    gjkd_urdf_result_free(&res);
    return 0;
}

/* gjkctl urdf-to-json ROBOT.urdf: a scene document holding the imported robot, on stdout. */
static int cmd_urdf_to_json(const args *a)
{
    gjkd_urdf_result res;
    double ms;
    if (!import_urdf(a, &res, &ms))
        return EXIT_USAGE;
    Gjkd__V1__Robot *robots[1] = {res.robot};
    Gjkd__V1__Scene scene = GJKD__V1__SCENE__INIT;
    scene.n_robots = 1;
    scene.robots = robots;
    char *text = gjkd_json_write_scene(&scene);
    gjkd_urdf_result_free(&res);
    if (text == NULL) {
        fputs("gjkctl: cannot write the robot as JSON (out of memory)\n", stderr);
        return EXIT_USAGE;
    }
    bool ok = puts(text) >= 0 && fflush(stdout) == 0;
    free(text);
    if (!ok) {
        fprintf(stderr, "gjkctl: cannot write stdout: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

/* gjkctl urdf-to-proto ROBOT.urdf: the imported Robot, serialized, on stdout. */
static int cmd_urdf_to_proto(const args *a)
{
    gjkd_urdf_result res;
    double ms;
    if (!import_urdf(a, &res, &ms))
        return EXIT_USAGE;
    if (isatty(STDOUT_FILENO)) {
        gjkd_urdf_result_free(&res);
        fputs("gjkctl: urdf-to-proto writes binary: redirect stdout to a file or a pipe\n", stderr);
        return EXIT_USAGE;
    }
    size_t n = gjkd__v1__robot__get_packed_size(res.robot);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        gjkd_urdf_result_free(&res);
        fputs("gjkctl: out of memory\n", stderr);
        return EXIT_USAGE;
    }
    gjkd__v1__robot__pack(res.robot, buf);
    gjkd_urdf_result_free(&res);
    bool ok = fwrite(buf, 1, n, stdout) == n && fflush(stdout) == 0;
    free(buf);
    if (!ok) {
        fprintf(stderr, "gjkctl: cannot write stdout: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    if (strcmp(a.command, "keygen") == 0)
        return cmd_keygen(&a);
    /* The URDF commands that need no daemon. */
    if (strcmp(a.command, "urdf-to-proto") == 0)
        return cmd_urdf_to_proto(&a);
    if (strcmp(a.command, "urdf-to-json") == 0)
        return cmd_urdf_to_json(&a);
    if (strcmp(a.command, "load-urdf") == 0 && a.dry_run)
        return cmd_load_urdf(NULL, &a);
    static const struct {
        const char *name;
        int (*run)(gjkd_client *, const args *);
    } commands[] = {
        {"health", cmd_health},       {"stats", cmd_stats},   {"scene", cmd_scene},
        {"load", cmd_load},           {"remove", cmd_remove}, {"poses", cmd_poses},
        {"joints", cmd_joints},       {"query", cmd_query},   {"trajectory", cmd_trajectory},
        {"load-urdf", cmd_load_urdf}, {"bench", cmd_bench},
#ifdef GJKCTL_VIEWER
        {"view", cmd_view},           {"trace", cmd_trace},
#endif
    };
    int (*run)(gjkd_client *, const args *) = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(a.command, commands[i].name) == 0)
            run = commands[i].run;
    }
    if (run == NULL)
        return usage_error("unknown command \"%s\"", a.command);

    gjkd_client_options o = gjkd_client_default_options();
    if (a.endpoint && a.endpoint[0])
        o.endpoint = a.endpoint;
    o.timeout_ms = (int)ceil(a.timeout_s * 1000.0);
    o.retries = a.retries;
    char server_key[41], secret_key[41], err[512];
    bool has_server = a.server_key_file && a.server_key_file[0];
    bool has_key = a.key_file && a.key_file[0];
    if (has_server != has_key)
        return usage_error("CURVE needs both --server-key and --key");
    if (has_server) {
        if (!gjkd_client_read_key_file(a.server_key_file, false, server_key, err, sizeof err) ||
            !gjkd_client_read_key_file(a.key_file, true, secret_key, err, sizeof err)) {
            fprintf(stderr, "gjkctl: %s\n", err);
            return EXIT_USAGE;
        }
        o.curve_server_key = server_key;
        o.curve_secret_key = secret_key;
    }
    gjkd_client *c;
    gjkd_status s = gjkd_client_create(&o, &c);
    if (s != GJKD_OK) {
        fprintf(stderr, "gjkctl: %s: cannot connect to \"%s\"\n", gjkd_status_name(s), o.endpoint);
        return EXIT_NO_REPLY;
    }
    if (a.has_expected_revision)
        gjkd_client_expect_revision(c, a.expected_revision);
    rc = run(c, &a);
    gjkd_client_destroy(&c);
    return rc;
}

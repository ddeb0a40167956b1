/* config.c — typed option table (Redis's config.c is the model): one row per option with its
 * type, default, bounds and help; the file, the command line and the defaults all go through
 * the same setter, so validation is written once. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include "log.h"

#include "gjk/base.h"
#include "gjk/world.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum opt_type {
    OPT_STRING,
    OPT_INT32,
    OPT_UINT32,
    OPT_UINT64,
    OPT_DOUBLE,
    OPT_BOOL,
    OPT_LEVEL
} opt_type;

typedef struct opt {
    const char *name;
    opt_type type;
    size_t offset;
    const char *fallback; /* default, as text */
    double min, max;      /* numeric bounds */
    const char *help;
} opt;

#define OFF(field) offsetof(gjkd_config, field)
#define LIM(field) (offsetof(gjkd_config, limits) + offsetof(gjkd_limits, field))

static const opt k_options[] = {
    {"endpoint", OPT_STRING, OFF(endpoint), GJKD_DEFAULT_ENDPOINT, 0, 0,
     "ZeroMQ endpoint of the request socket (ROUTER); loopback unless --insecure"},
    {"state-dir", OPT_STRING, OFF(state_dir), "", 0, 0,
     "directory for the persisted scene (empty: nothing persisted)"},
    {"threads", OPT_INT32, OFF(threads), "2", 1, 256, "worker threads"},
    {"query-threads", OPT_INT32, OFF(query_threads), "1", 1, 64, "threads per trajectory query"},
    {"demo", OPT_BOOL, OFF(demo), "false", 0, 0,
     "load the embedded demo scene when no persisted scene exists"},
    {"config", OPT_STRING, OFF(config_file), "", 0, 0, "ini file read before the command line"},
    {"log-level", OPT_LEVEL, OFF(log_level), "info", 0, 0, "debug, info, warn or error"},
    {"pose-endpoint", OPT_STRING, OFF(pose_endpoint), "", 0, 0,
     "SUB endpoint for PoseUpdate messages (empty: off)"},
    {"monitor-endpoint", OPT_STRING, OFF(monitor_endpoint), "", 0, 0,
     "PUB endpoint for MonitorEvent messages (empty: off)"},
    {"insecure", OPT_BOOL, OFF(insecure), "false", 0, 0,
     "allow binding non-loopback endpoints without CURVE (logged as a warning)"},
    {"curve-secret-key", OPT_STRING, OFF(curve_secret_key), "", 0, 0,
     "server secret key file (Z85, mode 0600; gjkctl keygen): CURVE on every socket"},
    {"curve-allow", OPT_STRING, OFF(curve_allow), "", 0, 0,
     "client public keys allowed with CURVE: a file of Z85 keys or a directory of *.pub"},
    {"scene", OPT_STRING, OFF(scene_file), "", 0, 0,
     "JSON scene file, followed: loaded at start (unless the persisted scene is newer) and "
     "again whenever it changes; its revision is derived from its bytes"},
    {"http", OPT_STRING, OFF(http), GJKD_DEFAULT_HTTP, 0, 0,
     "HOST:PORT of the HTTP endpoint: /metrics (Prometheus), /healthz, /readyz; read-only, so "
     "any address may be bound (off: none)"},
    {"drain-seconds", OPT_DOUBLE, OFF(drain_seconds), "5", 0, 3600,
     "on SIGTERM, longest wait for in-flight requests (new requests get UNAVAILABLE)"},
    {"handshake-seconds", OPT_DOUBLE, OFF(handshake_seconds), "5", 0.1, 3600,
     "a connection that has not completed its ZMTP/CURVE handshake by then is dropped"},
    {"request-timeout-seconds", OPT_DOUBLE, LIM(request_timeout_seconds), "60", 0, 86400,
     "deadline of a request that gives none (Request.deadline_ms): past it, a request still "
     "queued is refused and a query stopped with DEADLINE_EXCEEDED (0: none)"},
    {"max-connections", OPT_UINT32, OFF(max_connections), "10000", 16, 1000000,
     "connections of the request socket (at most the open-file limit less 64); beyond, the "
     "one idle longest (nothing sent yet) is shut down"},
    {"max-message-bytes", OPT_UINT64, LIM(max_message_bytes), "16777216", 1024, 1073741824.0,
     "largest request accepted"},
    {"max-points-per-part", OPT_UINT32, LIM(max_points_per_part), "10000", 1, 1000000,
     "points of one hull or convex part"},
    {"max-parts-per-body", OPT_UINT32, LIM(max_parts_per_body), "256", 1, GJK_WORLD_MAX_PARTS,
     "parts of one link or obstacle"},
    {"max-links-per-robot", OPT_UINT32, LIM(max_links_per_robot), "1024", 1, GJK_WORLD_MAX_LINKS,
     "links of one robot"},
    {"max-robots", OPT_UINT32, LIM(max_robots), "16", 1, GJKD_CAP_ROBOTS, "robots in the scene"},
    {"max-obstacles", OPT_UINT32, LIM(max_obstacles), "10000", 1, GJKD_CAP_OBSTACLES,
     "obstacles in the scene"},
    {"max-parts", OPT_UINT32, LIM(max_parts), "1000000", 1, GJKD_CAP_PARTS,
     "parts in the scene, over every link and obstacle"},
    {"max-waypoints", OPT_UINT32, LIM(max_waypoints), "10000", 1, 1000000,
     "waypoints of one trajectory query"},
    {"max-pairs", OPT_UINT32, LIM(max_pairs_returned), "1024", 1, 1000000,
     "pairs returned per state or waypoint"},
    {"max-reply-pairs", OPT_UINT32, LIM(max_reply_pairs), "100000", 1, 100000000,
     "pairs one query reply may hold in total, over all its waypoints"},
    {"max-reply-bytes", OPT_UINT64, LIM(max_reply_bytes), "67108864", 1024, 4294967296.0,
     "bytes of one query reply (estimated while the query runs, measured after)"},
    {"max-name-length", OPT_UINT32, LIM(max_name_length), "255", 1, GJK_WORLD_NAME_MAX,
     "bytes of a name"},
    {"max-allowed-pairs", OPT_UINT32, LIM(max_allowed_pairs), "10000", 0, 100000,
     "allowed pairs of the scene (each scene change walks them under the scene lock)"},
    {"max-queued", OPT_UINT32, LIM(max_queued), "1024", 0, 100000,
     "requests of one client waiting while every worker is busy (health and stats never "
     "wait)"},
    {"max-queued-bytes", OPT_UINT64, LIM(max_queued_bytes), "67108864", 0, 1099511627776.0,
     "bytes of one client's requests waiting while every worker is busy"},
    {"max-queued-total", OPT_UINT32, LIM(max_queued_total), "16384", 0, 10000000,
     "requests of all clients waiting while every worker is busy"},
    {"change-tokens", OPT_UINT32, LIM(change_tokens), "4096", 0, 1000000,
     "change tokens remembered, with their replies, so that a retried change runs once (0: "
     "off)"},
    {"change-token-seconds", OPT_DOUBLE, LIM(change_token_seconds), "300", 1, 86400,
     "how long a change token and its reply are remembered"},
    {"max-held-bytes", OPT_UINT64, LIM(max_held_bytes), "268435456", 0, 1099511627776.0,
     "memory budget: bytes of all requests waiting or being worked on"},
};
#define OPTION_COUNT (sizeof k_options / sizeof k_options[0])

/* "max_waypoints" and "max-waypoints" name the same option. */
static const opt *find_option(const char *name)
{
    char canon[64];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof canon)
        return NULL;
    for (size_t i = 0; i <= n; ++i)
        canon[i] = name[i] == '_' ? '-' : name[i];
    for (size_t i = 0; i < OPTION_COUNT; ++i)
        if (strcmp(k_options[i].name, canon) == 0)
            return &k_options[i];
    return NULL;
}

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (int i = 0; i < 4; ++i) {
        if (strcmp(v, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcmp(v, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

static bool set_option(gjkd_config *config, const opt *o, const char *value, char *err,
                       size_t err_size)
{
    char *base = (char *)config + o->offset;
    switch (o->type) {
    case OPT_STRING:
        if (strlen(value) >= GJKD_PATH_MAX) {
            snprintf(err, err_size, "%s: value longer than %d bytes", o->name, GJKD_PATH_MAX - 1);
            return false;
        }
        memcpy(base, value, strlen(value) + 1);
        return true;
    case OPT_BOOL: {
        bool b;
        if (!parse_bool(value, &b)) {
            snprintf(err, err_size, "%s: expected true or false, got '%s'", o->name, value);
            return false;
        }
        memcpy(base, &b, sizeof b);
        return true;
    }
    case OPT_LEVEL: {
        gjkd_log_level level;
        if (!gjkd_log_parse_level(value, &level)) {
            snprintf(err, err_size, "%s: expected debug, info, warn or error, got '%s'", o->name,
                     value);
            return false;
        }
        int32_t v = (int32_t)level;
        memcpy(base, &v, sizeof v);
        return true;
    }
    case OPT_INT32:
    case OPT_UINT32:
    case OPT_UINT64:
    case OPT_DOUBLE: {
        char *end = NULL;
        errno = 0;
        double d = strtod(value, &end);
        if (value[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(d)) {
            snprintf(err, err_size, "%s: expected a number, got '%s'", o->name, value);
            return false;
        }
        if (d < o->min || d > o->max) {
            snprintf(err, err_size, "%s: %s is outside [%.17g, %.17g]", o->name, value, o->min,
                     o->max);
            return false;
        }
        if (o->type != OPT_DOUBLE && d != floor(d)) {
            snprintf(err, err_size, "%s: expected an integer, got '%s'", o->name, value);
            return false;
        }
        if (o->type == OPT_INT32) {
            int32_t v = (int32_t)d;
            memcpy(base, &v, sizeof v);
        } else if (o->type == OPT_UINT32) {
            uint32_t v = (uint32_t)d;
            memcpy(base, &v, sizeof v);
        } else if (o->type == OPT_UINT64) {
            uint64_t v = (uint64_t)d;
            memcpy(base, &v, sizeof v);
        } else {
            memcpy(base, &d, sizeof d);
        }
        return true;
    }
    }
    return false;
}

bool gjkd_config_set(gjkd_config *config, const char *name, const char *value, char *err,
                     size_t err_size)
{
    const opt *o = find_option(name);
    if (o == NULL) {
        snprintf(err, err_size, "unknown option '%s'", name);
        return false;
    }
    return set_option(config, o, value, err, err_size);
}

void gjkd_config_defaults(gjkd_config *config)
{
    memset(config, 0, sizeof *config);
    char err[256];
    for (size_t i = 0; i < OPTION_COUNT; ++i) {
        bool ok = set_option(config, &k_options[i], k_options[i].fallback, err, sizeof err);
        (void)ok; /* the table's defaults are valid (tested) */
    }
}

void gjkd_config_print_help(FILE *out)
{
    fprintf(out, "usage: gjkd [--option value | --option=value]...\n\noptions (defaults in "
                 "brackets; the same names work in the --config ini file, and as GJKD_NAME\n"
                 "environment variables, e.g. GJKD_MAX_WAYPOINTS; precedence: defaults < file "
                 "< environment < command line):\n");
    for (size_t i = 0; i < OPTION_COUNT; ++i) {
        const opt *o = &k_options[i];
        fprintf(out, "  --%-22s %s [%s]\n", o->name, o->help,
                o->fallback[0] != '\0' ? o->fallback : "");
    }
    fprintf(out, "  --%-22s %s\n  --%-22s %s\n", "help", "print this help", "version",
            "print the version");
}

typedef struct ini_context {
    gjkd_config *config;
    char *err;
    size_t err_size;
    bool failed;
} ini_context;

static int on_ini_entry(void *user, const char *section, const char *name, const char *value)
{
    ini_context *ctx = user;
    if (ctx->failed)
        return 0;
    if (section[0] != '\0' && strcmp(section, "gjkd") != 0) {
        snprintf(ctx->err, ctx->err_size, "unknown section [%s]", section);
        ctx->failed = true;
        return 0;
    }
    if (find_option(name) == find_option("config")) {
        snprintf(ctx->err, ctx->err_size, "'config' cannot be set from a config file");
        ctx->failed = true;
        return 0;
    }
    if (!gjkd_config_set(ctx->config, name, value, ctx->err, ctx->err_size)) {
        ctx->failed = true;
        return 0;
    }
    return 1;
}

/* Splits argv[i] into name and value ("--name=value", "--name value", "--flag"). Returns the
 * number of argv entries used, 0 on error. */
static int split_arg(int argc, char **argv, int i, const char **name, char *name_buf,
                     size_t name_size, const char **value, char *err, size_t err_size)
{
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
        snprintf(err, err_size, "unexpected argument '%s' (options start with --)", arg);
        return 0;
    }
    arg += 2;
    const char *eq = strchr(arg, '=');
    if (eq != NULL) {
        size_t n = (size_t)(eq - arg);
        if (n >= name_size) {
            snprintf(err, err_size, "unknown option '--%s'", arg);
            return 0;
        }
        memcpy(name_buf, arg, n);
        name_buf[n] = '\0';
        *name = name_buf;
        *value = eq + 1;
        return 1;
    }
    *name = arg;
    const opt *o = find_option(arg);
    if (o == NULL) {
        snprintf(err, err_size, "unknown option '--%s' (see --help)", arg);
        return 0;
    }
    if (o->type == OPT_BOOL) { /* a bare flag means true */
        *value = "true";
        return 1;
    }
    if (i + 1 >= argc) {
        snprintf(err, err_size, "option '--%s' needs a value", arg);
        return 0;
    }
    *value = argv[i + 1];
    return 2;
}

/* "max-waypoints" -> "GJKD_MAX_WAYPOINTS". */
static void env_name(const char *option, char *out, size_t out_size)
{
    int n = snprintf(out, out_size, "GJKD_%s", option);
    for (int i = 5; i < n && (size_t)i < out_size; ++i)
        out[i] = out[i] == '-' ? '_' : (char)toupper((unsigned char)out[i]);
}

/* Every option set in the environment, through the same setter (config excepted: it was
 * taken before the file was read). */
static bool load_environment(gjkd_config *config, char *err, size_t err_size)
{
    for (size_t i = 0; i < OPTION_COUNT; ++i) {
        const opt *o = &k_options[i];
        if (o == find_option("config"))
            continue;
        char name[80];
        env_name(o->name, name, sizeof name);
        const char *value = getenv(name);
        if (value == NULL)
            continue;
        char inner[256];
        if (!set_option(config, o, value, inner, sizeof inner)) {
            snprintf(err, err_size, "environment %s: %s", name, inner);
            return false;
        }
    }
    return true;
}

gjkd_config_result gjkd_config_load(gjkd_config *config, int argc, char **argv, FILE *help_out,
                                    char *err, size_t err_size)
{
    gjkd_config_defaults(config);
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            gjkd_config_print_help(help_out);
            return GJKD_CONFIG_EXIT;
        }
        if (strcmp(argv[i], "--version") == 0) {
            fprintf(help_out, "gjkd %d.%d.%d\n", GJK_VERSION_MAJOR, GJK_VERSION_MINOR,
                    GJK_VERSION_PATCH);
            return GJKD_CONFIG_EXIT;
        }
    }
    /* Pass 1: only --config, so that the file goes under the command line. */
    char name_buf[64];
    for (int i = 1; i < argc;) {
        const char *name, *value;
        int used =
            split_arg(argc, argv, i, &name, name_buf, sizeof name_buf, &value, err, err_size);
        if (used == 0)
            return GJKD_CONFIG_ERROR;
        if (find_option(name) == find_option("config") &&
            !gjkd_config_set(config, name, value, err, err_size))
            return GJKD_CONFIG_ERROR;
        i += used;
    }
    const char *env_config = getenv("GJKD_CONFIG");
    if (config->config_file[0] == '\0' && env_config != NULL &&
        !gjkd_config_set(config, "config", env_config, err, err_size))
        return GJKD_CONFIG_ERROR;
    if (config->config_file[0] != '\0') {
        ini_context ctx = {config, err, err_size, false};
        int rc = ini_parse(config->config_file, on_ini_entry, &ctx);
        if (rc == -1) {
            snprintf(err, err_size, "cannot open config file '%s': %s", config->config_file,
                     strerror(errno));
            return GJKD_CONFIG_ERROR;
        }
        if (ctx.failed || rc != 0) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s", ctx.failed ? err : "syntax error");
            snprintf(err, err_size, "%s:%d: %s", config->config_file, rc, inner);
            return GJKD_CONFIG_ERROR;
        }
    }
    if (!load_environment(config, err, err_size))
        return GJKD_CONFIG_ERROR;
    /* Pass 2: the command line wins. */
    for (int i = 1; i < argc;) {
        const char *name, *value;
        int used =
            split_arg(argc, argv, i, &name, name_buf, sizeof name_buf, &value, err, err_size);
        if (used == 0 || !gjkd_config_set(config, name, value, err, err_size))
            return GJKD_CONFIG_ERROR;
        i += used;
    }
    return GJKD_CONFIG_OK;
}

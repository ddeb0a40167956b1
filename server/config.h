/* config.h — the daemon's typed configuration table.
 *
 * Every option has a name, a type, a default, bounds and a help line in one table
 * (config.c). Precedence: defaults < config file (ini, --config FILE) < environment <
 * command line. The same names are used on the command line (--max-waypoints 500,
 * --max-waypoints=500), in the file (max-waypoints = 500 or max_waypoints = 500, top level or
 * in a [gjkd] section) and in the environment (GJKD_MAX_WAYPOINTS=500: the name upper-cased,
 * '-' -> '_'); every source goes through the same setter. GJKD_CONFIG names the file when
 * the command line does not. */
#ifndef GJKD_CONFIG_H
#define GJKD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GJKD_DEFAULT_ENDPOINT "tcp://127.0.0.1:7471"
#define GJKD_DEFAULT_HTTP "127.0.0.1:7472" /* http.h */
#define GJKD_PATH_MAX 1024

/* The largest values max-robots, max-obstacles and max-parts can take. The service's world is
 * created with these capacities (gjkd_service_create), so that it never refuses a scene
 * within the limits, whatever SIGHUP sets them to: the limits are checked, completely, before
 * a change is written to disk, and the world's own capacities are never what stops it. */
#define GJKD_CAP_ROBOTS 64
#define GJKD_CAP_OBSTACLES 100000
#define GJKD_CAP_PARTS 1000000

/* Limits, all enforced before any work starts. Reloadable with SIGHUP. */
typedef struct gjkd_limits {
    uint64_t max_message_bytes;   /* request size; larger gets RESOURCE_EXHAUSTED; beyond twice
                                     this libzmq drops the connection (ZMQ_MAXMSGSIZE) */
    uint32_t max_points_per_part; /* hull / convex vertices per part */
    uint32_t max_parts_per_body;  /* parts per link or obstacle */
    uint32_t max_links_per_robot;
    uint32_t max_robots;
    uint32_t max_obstacles;
    uint32_t max_parts;          /* parts in the scene, over every link and obstacle */
    uint32_t max_waypoints;      /* per trajectory query */
    uint32_t max_pairs_returned; /* per state / waypoint */
    /* The reply's size (issue 22, finding 14): a query is stopped as soon as the pairs it has
     * reported pass max_reply_pairs in total (over every waypoint), or max_reply_bytes at an
     * estimate per pair; a reply that comes out larger than max_reply_bytes is refused
     * instead of sent. Both RESOURCE_EXHAUSTED. */
    /* Deadline of a request without Request.deadline_ms (issue 22, finding 13); 0 = none. */
    double request_timeout_seconds;
    /* Change tokens (issue 22, finding 11; tokens.h): how many, for how long. */
    uint32_t change_tokens;
    double change_token_seconds;
    uint32_t max_reply_pairs;
    uint64_t max_reply_bytes;
    uint32_t max_name_length;   /* bytes */
    uint32_t max_queued;        /* requests of one client waiting while every worker is busy */
    uint32_t max_allowed_pairs; /* allowed pairs of the scene (one SetAllowedPairs / document) */
    /* The memory budget of the broker, in bytes and requests (issue 22): beyond it a request
     * gets RESOURCE_EXHAUSTED at once, before it is queued. */
    uint64_t max_queued_bytes; /* bytes of one client's requests waiting for a worker */
    uint64_t max_held_bytes;   /* all clients: requests waiting or being worked on */
    uint32_t max_queued_total; /* requests of all clients waiting for a worker */
} gjkd_limits;

typedef struct gjkd_config {
    char endpoint[GJKD_PATH_MAX];
    char state_dir[GJKD_PATH_MAX];        /* "" = no persistence */
    char pose_endpoint[GJKD_PATH_MAX];    /* "" = no pose stream */
    char monitor_endpoint[GJKD_PATH_MAX]; /* "" = no monitor stream */
    char config_file[GJKD_PATH_MAX];      /* "" = none */
    char curve_secret_key[GJKD_PATH_MAX]; /* server secret key file; "" = no CURVE */
    char curve_allow[GJKD_PATH_MAX];      /* allow-list: file of keys or dir of *.pub */
    char scene_file[GJKD_PATH_MAX];       /* JSON scene followed: loaded at start and on change */
    char http[GJKD_PATH_MAX];             /* HOST:PORT of /metrics, /healthz, /readyz; "off" */
    int32_t threads;                      /* worker threads */
    int32_t query_threads;                /* threads per trajectory query */
    int32_t log_level;                    /* gjkd_log_level */
    bool demo;
    bool insecure;
    double drain_seconds;     /* SIGTERM: longest wait for in-flight and queued requests */
    double handshake_seconds; /* a connection that has not finished its ZMTP (CURVE) handshake
                                 by then is dropped (ZMQ_HANDSHAKE_IVL) */
    uint32_t max_connections; /* of the request socket; also kept 64 below the open-file
                                 limit; over it the longest idle connection is shut down */
    gjkd_limits limits;
} gjkd_config;

typedef enum gjkd_config_result {
    GJKD_CONFIG_OK = 0,
    GJKD_CONFIG_EXIT = 1,   /* --help or --version was printed: exit 0 */
    GJKD_CONFIG_ERROR = -1, /* message in err */
} gjkd_config_result;

/* Fills every field with its default. */
void gjkd_config_defaults(gjkd_config *config);

/* defaults < file named by --config (or GJKD_CONFIG) < GJKD_* environment < argv. argv[0]
 * is the program name. */
gjkd_config_result gjkd_config_load(gjkd_config *config, int argc, char **argv, FILE *help_out,
                                    char *err, size_t err_size);

/* Sets one option by name from text, as the file and command line do. */
bool gjkd_config_set(gjkd_config *config, const char *name, const char *value, char *err,
                     size_t err_size);

/* Prints the options table (name, default, help). */
void gjkd_config_print_help(FILE *out);

#endif /* GJKD_CONFIG_H */

/* test_json_numbers.c — the numbers of every JSON gjkd writes (gjkd_json.h, "Numbers"): a
 * double reads back bit for bit and as a double, an integer exactly and as an integer, a
 * non-finite value as null.
 *
 * Regression (issue 19): `gjkctl --json` printed numbers with cJSON's printer, which keeps 15
 * significant digits whenever they come within DBL_EPSILON of the value: up to 2 ulp off
 * (-0.237472662008158 for the reply's -0x1.e6581128271e0p-3). gjkctl and the document writers
 * now print through gjkd_json_double; this test holds it to exact round trips over thousands
 * of doubles of every magnitude (fixed seed), through strtod, through cJSON's parser, and
 * through the document writers and parsers. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gjkd_json.h"

enum { RANDOM_COUNT = 20000 };

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

/* xorshift64*: every run the same sequence. */
static uint64_t next_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717u;
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* The values every check runs on: fixed ones that matter, then random ones of four kinds
 * (any finite bit pattern, subnormals, metre-scale values with full mantissas, integers as
 * doubles). Returns the count; *out is malloc'd. */
static size_t test_values(double **out)
{
    rng_state = 0x9E3779B97F4A7C15u;
    /* clang-format off */
    static const double fixed[] = {
        0.0, -0.0, 0.1, -0.1, 1.0 / 3.0, 1e-300, 1e300, -1e300, 1.0, 5.0, -5.0, 100.0,
        1e15, 1e16, 1e17, 1e21, 1e22, 1e-7, 0.5, 0x1p53, 0x1p53 + 2.0, 9007199254740993.0,
        DBL_MIN, DBL_MAX, -DBL_MAX, 5e-324, -5e-324, 0x1p-1074, 0x1p-1022 - 0x1p-1074,
        2.2250738585072011e-308, 0.30000000000000004, 123456789.123456789,
        -0.237472662008158, -0x1.e6581128271e0p-3,
    };
    /* clang-format on */
    size_t n_fixed = sizeof fixed / sizeof fixed[0];
    size_t n = n_fixed + RANDOM_COUNT;
    double *v = malloc(n * sizeof *v);
    assert_non_null(v);
    memcpy(v, fixed, sizeof fixed);
    for (size_t i = n_fixed; i < n;) {
        uint64_t r = next_u64();
        double d;
        switch (i % 4) {
        case 0: /* any bit pattern: every exponent */
            d = from_bits(r);
            break;
        case 1: /* a subnormal, either sign */
            d = from_bits((r & 0x800FFFFFFFFFFFFFu) | 1u);
            break;
        case 2: /* metres: [-10, 10) with a full mantissa */
            d = ((double)(r >> 11) * 0x1.0p-53 - 0.5) * 20.0;
            break;
        default: /* an integer, as a double */
            d = (double)(int64_t)(r >> (r & 63));
            break;
        }
        if (isfinite(d))
            v[i++] = d;
    }
    *out = v;
    return n;
}

static void doubles_read_back_bit_for_bit(void **state)
{
    (void)state;
    double *v;
    size_t n = test_values(&v);
    size_t short_ones = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[GJKD_JSON_NUMBER_SIZE];
        assert_true(gjkd_json_format_double(v[i], buf));
        assert_true(strlen(buf) < GJKD_JSON_NUMBER_SIZE);
        char *end;
        double back = strtod(buf, &end);
        if (*end != '\0' || to_bits(back) != to_bits(v[i]))
            fail_msg("%a printed as \"%s\", read back as %a", v[i], buf, back);
        /* A double reads as a double: a '.' or an exponent, nothing else but digits and signs. */
        assert_non_null(strpbrk(buf, ".e"));
        assert_int_equal(strspn(buf, "0123456789.e+-"), strlen(buf));
        /* The shortest of 15, 16, 17 digits: 15 whenever 15 read back. */
        char g15[GJKD_JSON_NUMBER_SIZE];
        snprintf(g15, sizeof g15, "%.15g", v[i]);
        if (to_bits(strtod(g15, NULL)) == to_bits(v[i])) {
            short_ones++;
            assert_int_equal(strncmp(buf, g15, strlen(g15)), 0);
        }
    }
    assert_true(short_ones > 0 && short_ones < n); /* both kinds were exercised */
    free(v);
}

/* The definition (gjkd_json.h, "Numbers") as it was first written: the shortest of %.15g,
 * %.16g and %.17g that strtod reads back bit for bit, ".0" appended when it has neither a
 * '.' nor an exponent. The formatter rounds the 15- and 16-digit forms from one 17-digit
 * printf instead of asking printf three times; it must print exactly this. */
static void reference_format(double v, char *buf)
{
    int n = 0;
    for (int digits = 15; digits <= 17; digits++) {
        n = snprintf(buf, GJKD_JSON_NUMBER_SIZE, "%.*g", digits, v);
        double back = strtod(buf, NULL);
        if (memcmp(&back, &v, sizeof v) == 0)
            break;
    }
    if (strpbrk(buf, ".e") == NULL && n > 0 && n + 2 < GJKD_JSON_NUMBER_SIZE)
        memcpy(buf + n, ".0", 3);
}

static void same_text_as_the_definition(double v)
{
    char fast[GJKD_JSON_NUMBER_SIZE], ref[GJKD_JSON_NUMBER_SIZE];
    assert_true(gjkd_json_format_double(v, fast));
    reference_format(v, ref);
    if (strcmp(fast, ref) != 0)
        fail_msg("%a printed as \"%s\", the definition gives \"%s\"", v, fast, ref);
}

static void doubles_print_as_defined(void **state)
{
    (void)state;
    double *v;
    size_t n = test_values(&v);
    for (size_t i = 0; i < n; i++) {
        same_text_as_the_definition(v[i]);
        same_text_as_the_definition(-v[i]);
    }
    free(v);
    /* Where rounding 17 digits to 15 or 16 is not printf's rounding: the dropped digits
     * exactly a half (a tie of the 17 digits, not of the value), the values near them, and
     * carries (9.99..9 up to 10). Decimals of 16 to 18 digits ending in 5, 50, 49, 51, of
     * every decade from 1e-310 to 1e308, and their neighbours. */
    static const char *const tails[] = {"5", "50", "49", "51", "499", "501", "5000001", "9"};
    char text[64];
    for (int k = 0; k < 20000; k++) {
        uint64_t r = next_u64();
        int exponent = (int)(r % 618) - 310;
        unsigned long long mantissa = (unsigned long long)(next_u64() % 1000000000000000ull);
        const char *tail = tails[r >> 60 & 7];
        if ((r >> 59 & 1) != 0) /* all nines: the carry */
            mantissa = 999999999999999ull;
        snprintf(text, sizeof text, "%llu.%015llu%se%d", mantissa % 9 + 1, mantissa, tail,
                 exponent);
        double d = strtod(text, NULL);
        if (!isfinite(d))
            continue;
        same_text_as_the_definition(d);
        same_text_as_the_definition(nextafter(d, INFINITY));
        same_text_as_the_definition(nextafter(d, -INFINITY));
    }
    /* Powers of ten and their neighbours (the exponent changes with the rounding). */
    for (int e = -320; e <= 308; e++) {
        snprintf(text, sizeof text, "1e%d", e);
        double d = strtod(text, NULL);
        same_text_as_the_definition(d);
        same_text_as_the_definition(nextafter(d, INFINITY));
        same_text_as_the_definition(nextafter(d, 0.0));
    }
}

static void doubles_read_back_through_cjson(void **state)
{
    (void)state;
    double *v;
    size_t n = test_values(&v);
    cJSON *arr = cJSON_CreateArray();
    assert_non_null(arr);
    for (size_t i = 0; i < n; i++) {
        cJSON *x = gjkd_json_double(v[i]);
        assert_non_null(x);
        assert_true(cJSON_AddItemToArray(arr, x));
    }
    char *text = cJSON_PrintUnformatted(arr);
    assert_non_null(text);
    cJSON_Delete(arr);
    cJSON *back = cJSON_Parse(text);
    free(text);
    assert_non_null(back);
    assert_int_equal(cJSON_GetArraySize(back), (int)n);
    size_t i = 0;
    for (const cJSON *it = back->child; it != NULL; it = it->next, i++) {
        assert_true(cJSON_IsNumber(it));
        if (to_bits(it->valuedouble) != to_bits(v[i]))
            fail_msg("[%zu] %a read back as %a", i, v[i], it->valuedouble);
    }
    cJSON_Delete(back);
    free(v);
}

static void some_values_print_as_expected(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {0.1, "0.1"},
        {5.0, "5.0"},
        {-5.0, "-5.0"},
        {1e300, "1e+300"},
        {1e-300, "1e-300"},
        {1e16, "1e+16"},
        {0.30000000000000004, "0.30000000000000004"},
        {5e-324, "4.94065645841247e-324"},
        {-0x1.e6581128271e0p-3, "-0.23747266200815798"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[GJKD_JSON_NUMBER_SIZE];
        assert_true(gjkd_json_format_double(cases[i].v, buf));
        assert_string_equal(buf, cases[i].text);
    }
}

/* JSON has no NaN or infinity: null, valid JSON, and the formatter says so. */
static void non_finite_is_null(void **state)
{
    (void)state;
    const double bad[] = {INFINITY, -INFINITY, NAN, -NAN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[GJKD_JSON_NUMBER_SIZE];
        assert_false(gjkd_json_format_double(bad[i], buf));
        assert_string_equal(buf, "null");
        cJSON *o = cJSON_CreateObject();
        assert_non_null(o);
        assert_true(cJSON_AddItemToObject(o, "min_distance", gjkd_json_double(bad[i])));
        char *text = cJSON_PrintUnformatted(o);
        assert_string_equal(text, "{\"min_distance\":null}");
        cJSON *back = cJSON_Parse(text);
        assert_non_null(back);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(back, "min_distance")));
        cJSON_Delete(back);
        free(text);
        cJSON_Delete(o);
    }
}

/* Integers: their exact digits, no '.', no exponent, also beyond 2^53. */
static void integers_stay_integers(void **state)
{
    (void)state;
    static const struct {
        int64_t v;
        const char *text;
    } ints[] = {{0, "0"},
                {-1, "-1"},
                {7, "7"},
                {9007199254740993, "9007199254740993"},
                {INT64_MIN, "-9223372036854775808"},
                {INT64_MAX, "9223372036854775807"}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        cJSON *x = gjkd_json_int(ints[i].v);
        char *text = cJSON_PrintUnformatted(x);
        assert_string_equal(text, ints[i].text);
        free(text);
        cJSON_Delete(x);
    }
    cJSON *x = gjkd_json_uint(UINT64_MAX);
    char *text = cJSON_PrintUnformatted(x);
    assert_string_equal(text, "18446744073709551615");
    free(text);
    cJSON_Delete(x);
}

/* The document writers print through the same helper: poses with random positions and
 * quaternions of every kind read back bit for bit; a non-finite number refuses the document. */
static void documents_read_back_bit_for_bit(void **state)
{
    (void)state;
    double *v;
    size_t n = test_values(&v);
    size_t links = n / 7;
    Gjkd__V1__SetLinkPosesRequest req = GJKD__V1__SET_LINK_POSES_REQUEST__INIT;
    Gjkd__V1__RobotState rs = GJKD__V1__ROBOT_STATE__INIT;
    Gjkd__V1__LinkPoses lp = GJKD__V1__LINK_POSES__INIT;
    Gjkd__V1__RobotState *rsp = &rs;
    req.n_robots = 1;
    req.robots = &rsp;
    rs.robot = "arm";
    rs.state_case = GJKD__V1__ROBOT_STATE__STATE_LINK_POSES;
    rs.link_poses = &lp;
    Gjkd__V1__Pose *poses = calloc(links, sizeof *poses);
    Gjkd__V1__Pose **pp = calloc(links, sizeof *pp);
    Gjkd__V1__Vec3 *pos = calloc(links, sizeof *pos);
    Gjkd__V1__Quaternion *quat = calloc(links, sizeof *quat);
    assert_true(poses && pp && pos && quat);
    for (size_t i = 0; i < links; i++) {
        gjkd__v1__pose__init(&poses[i]);
        gjkd__v1__vec3__init(&pos[i]);
        gjkd__v1__quaternion__init(&quat[i]);
        pos[i].x = v[7 * i];
        pos[i].y = v[7 * i + 1];
        pos[i].z = v[7 * i + 2];
        /* A unit quaternion (the parser checks the norm) with full-mantissa components. */
        double q[4] = {v[7 * i + 3], v[7 * i + 4], v[7 * i + 5], v[7 * i + 6]};
        double norm = 0.0;
        for (int k = 0; k < 4; k++) {
            q[k] = isfinite(q[k]) && fabs(q[k]) < 1e100 && fabs(q[k]) > 1e-100 ? q[k] : 0.5;
            norm += q[k] * q[k];
        }
        norm = sqrt(norm);
        quat[i].w = q[0] / norm;
        quat[i].x = q[1] / norm;
        quat[i].y = q[2] / norm;
        quat[i].z = q[3] / norm;
        poses[i].position = &pos[i];
        poses[i].orientation = &quat[i];
        pp[i] = &poses[i];
    }
    lp.n_poses = links;
    lp.poses = pp;

    char *text = gjkd_json_write_poses(&req);
    assert_non_null(text);
    Gjkd__V1__SetLinkPosesRequest *back;
    gjkd_json_error err;
    if (!gjkd_json_parse_poses(text, strlen(text), &back, &err))
        fail_msg("%s", err.message);
    free(text);
    assert_int_equal(back->robots[0]->link_poses->n_poses, links);
    for (size_t i = 0; i < links; i++) {
        const Gjkd__V1__Pose *p = back->robots[0]->link_poses->poses[i];
        const double got[7] = {p->position->x,    p->position->y,    p->position->z,
                               p->orientation->w, p->orientation->x, p->orientation->y,
                               p->orientation->z};
        const double want[7] = {pos[i].x,  pos[i].y,  pos[i].z, quat[i].w,
                                quat[i].x, quat[i].y, quat[i].z};
        for (int k = 0; k < 7; k++) {
            if (to_bits(got[k]) != to_bits(want[k]))
                fail_msg("pose %zu value %d: %a read back as %a", i, k, want[k], got[k]);
        }
    }
    gjkd_json_poses_free(&back);

    pos[0].y = INFINITY;
    assert_null(gjkd_json_write_poses(&req));
    pos[0].y = NAN;
    assert_null(gjkd_json_write_poses(&req));
    free(poses);
    free(pp);
    free(pos);
    free(quat);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubles_read_back_bit_for_bit),
        cmocka_unit_test(doubles_print_as_defined),
        cmocka_unit_test(doubles_read_back_through_cjson),
        cmocka_unit_test(some_values_print_as_expected),
        cmocka_unit_test(non_finite_is_null),
        cmocka_unit_test(integers_stay_integers),
        cmocka_unit_test(documents_read_back_bit_for_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* cases.c — parser for the GJKBENCH 1 text format (see cases.h). */
#include "cases.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    FILE *f;
    const char *path;
    long line;
    char *buf;
    size_t cap;
    char *err;
    size_t errlen;
} reader;

static void fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->err, r->errlen, "%s:%ld: ", r->path, r->line);
    if (n < 0 || (size_t)n >= r->errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Next line that is neither blank nor a comment; NULL at end of file. */
static char *next_line(reader *r)
{
    for (;;) {
        size_t used = 0;
        int ch;
        /* getline is POSIX, not C11: read by hand. */
        while ((ch = fgetc(r->f)) != EOF && ch != '\n') {
            if (used + 2 > r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 256;
                char *nb = realloc(r->buf, cap);
                if (!nb)
                    return NULL;
                r->buf = nb;
                r->cap = cap;
            }
            r->buf[used++] = (char)ch;
        }
        if (ch == EOF && used == 0)
            return NULL;
        if (!r->buf) {
            r->buf = malloc(256);
            if (!r->buf)
                return NULL;
            r->cap = 256;
        }
        r->buf[used] = '\0';
        r->line++;
        char *s = r->buf;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        return s;
    }
}

static void copy_word(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src);
}

static int push_case(gjk_case_set *s, int32_t *cap)
{
    if (s->case_count == *cap) {
        int32_t nc = *cap ? *cap * 2 : 1024;
        gjk_case *n = realloc(s->cases, (size_t)nc * sizeof *n);
        if (!n)
            return -1;
        s->cases = n;
        *cap = nc;
    }
    s->case_count++;
    return 0;
}

static int push_shape(gjk_case_set *s, int32_t *cap)
{
    if (s->shape_count == *cap) {
        int32_t nc = *cap ? *cap * 2 : 64;
        gjk_case_shape *n = realloc(s->shapes, (size_t)nc * sizeof *n);
        if (!n)
            return -1;
        s->shapes = n;
        *cap = nc;
    }
    memset(&s->shapes[s->shape_count], 0, sizeof s->shapes[0]);
    s->shape_count++;
    return 0;
}

int gjk_cases_load(const char *path, gjk_case_set *out, char *err, size_t errlen)
{
    reader r = {0};
    gjk_case_set s = {0};
    int32_t case_cap = 0, shape_cap = 0;
    char *line;
    char w1[64], w2[64], w3[64], w4[64], w5[64];

    memset(out, 0, sizeof *out);
    r.path = path;
    r.err = err;
    r.errlen = errlen;
    r.f = fopen(path, "r");
    if (!r.f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    line = next_line(&r);
    if (!line || strncmp(line, "GJKBENCH 1", 10) != 0) {
        fail(&r, "not a GJKBENCH 1 case file");
        goto bad;
    }
    while ((line = next_line(&r)) != NULL) {
        if (line[0] == 'S' && line[1] == ' ') {
            int id, n;
            double radius;
            if (sscanf(line, "S %d %63s %d %lf", &id, w1, &n, &radius) != 4 || n < 1 ||
                id != s.shape_count) {
                fail(&r, "bad S line (shapes must be numbered from 0 in order)");
                goto bad;
            }
            if (push_shape(&s, &shape_cap) != 0)
                goto oom;
            gjk_case_shape *sh = &s.shapes[s.shape_count - 1];
            sh->id = id;
            copy_word(sh->cls, sizeof sh->cls, w1);
            sh->count = n;
            sh->radius = radius;
            sh->points = malloc((size_t)n * sizeof *sh->points);
            if (!sh->points)
                goto oom;
            for (int i = 0; i < n; i++) {
                line = next_line(&r);
                if (!line || sscanf(line, "%lf %lf %lf", &sh->points[i].x, &sh->points[i].y,
                                    &sh->points[i].z) != 3) {
                    fail(&r, "expected vertex %d of shape %d", i, id);
                    goto bad;
                }
            }
        } else if (line[0] == 'C' && line[1] == ' ') {
            int id, seq, sa, sb;
            gjk_transform pa, pb;
            if (sscanf(line,
                       "C %d %63s %63s %63s %d %d %lf %lf %lf %lf %lf %lf %lf %d %lf %lf %lf "
                       "%lf %lf %lf %lf",
                       &id, w1, w2, w3, &seq, &sa, &pa.q.w, &pa.q.x, &pa.q.y, &pa.q.z, &pa.p.x,
                       &pa.p.y, &pa.p.z, &sb, &pb.q.w, &pb.q.x, &pb.q.y, &pb.q.z, &pb.p.x,
                       &pb.p.y, &pb.p.z) != 21) {
                fail(&r, "bad C line");
                goto bad;
            }
            if (sa < 0 || sa >= s.shape_count || sb < 0 || sb >= s.shape_count) {
                fail(&r, "case %d names an unknown shape", id);
                goto bad;
            }
            if (push_case(&s, &case_cap) != 0)
                goto oom;
            gjk_case *c = &s.cases[s.case_count - 1];
            memset(c, 0, sizeof *c);
            c->id = id;
            copy_word(c->subset, sizeof c->subset, w1);
            copy_word(c->state, sizeof c->state, w2);
            copy_word(c->tag, sizeof c->tag, w3);
            c->seq = seq;
            c->shape_a = sa;
            c->shape_b = sb;
            c->pose_a = pa;
            c->pose_b = pb;
            line = next_line(&r);
            if (!line || sscanf(line,
                                "O %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %63s %lf %lf "
                                "%63s",
                                &c->sd, &c->normal.x, &c->normal.y, &c->normal.z, &c->wa.x,
                                &c->wa.y, &c->wa.z, &c->wb.x, &c->wb.y, &c->wb.z, &c->gap, w4,
                                &c->target, &c->lref, w5) != 15) {
                fail(&r, "expected the O line of case %d", id);
                goto bad;
            }
            copy_word(c->feature, sizeof c->feature, w4);
            copy_word(c->method, sizeof c->method, w5);
        } else {
            fail(&r, "unexpected record '%.20s'", line);
            goto bad;
        }
    }
    if (ferror(r.f)) {
        fail(&r, "read error");
        goto bad;
    }
    fclose(r.f);
    free(r.buf);
    *out = s;
    return 0;
oom:
    fail(&r, "out of memory");
bad:
    fclose(r.f);
    free(r.buf);
    gjk_cases_free(&s);
    return -1;
}

void gjk_cases_free(gjk_case_set *set)
{
    if (!set)
        return;
    for (int32_t i = 0; i < set->shape_count; i++)
        free(set->shapes[i].points);
    free(set->shapes);
    free(set->cases);
    memset(set, 0, sizeof *set);
}

char gjk_case_bucket(const gjk_case_set *set, const gjk_case *c)
{
    int32_t na = set->shapes[c->shape_a].count, nb = set->shapes[c->shape_b].count;
    int32_t n = na > nb ? na : nb;
    if (n <= 24)
        return 'S';
    if (n <= 384)
        return 'M';
    return 'L';
}

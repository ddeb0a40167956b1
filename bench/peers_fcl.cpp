// peers_fcl.cpp — FCL 0.7 (Debian libfcl-dev) on fcl::Convex as a benchmark peer.
//
// Both narrow-phase solvers, each with its distance, signed-distance and intersect calls:
//   fcl-ccd      GJKSolver_libccd: shapeDistance on separated cases, shapeIntersect (with a
//                contact: depth and normal) on intersecting ones;
//   fcl-ccd-sd   GJKSolver_libccd::shapeSignedDistance on every case;
//   fcl-indep    GJKSolver_indep: shapeDistance / shapeIntersect (GJK + EPA), warm start
//                through the solver's cached guess;
//   fcl-indep-sd GJKSolver_indep::shapeSignedDistance — in 0.7 this is plain GJK distance
//                (the source says "TODO: should implement the signed distance version"):
//                on overlap it returns false and distance -1, so it has no depth.
// FCL 0.7 conventions we convert (checked against the exact answers of the case files):
//   - GJKSolver_indep::shapeIntersect stores penetration_depth = -epa.depth (negative) and
//     returns epa.normal in shape 1's LOCAL frame; we take depth = -penetration_depth and
//     rotate the normal by tf1 into the world frame. That normal points from A to B.
//   - GJKSolver_libccd::shapeIntersect gives a positive depth and a world normal from A to B.
// Solver settings are FCL's defaults (libccd: distance_tolerance 1e-6, 500/1000 iterations;
// indep: tolerance 1e-6, 128 GJK / 255 EPA iterations, 128 faces / 64 vertices).
// Convex shapes need faces: the hull's triangles; FCL walks the vertex graph it derives
// from them for shapes of more than 32 vertices.
#include "peers.h"

#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include <fcl/geometry/shape/convex.h>
#include <fcl/narrowphase/detail/gjk_solver_indep.h>
#include <fcl/narrowphase/detail/gjk_solver_libccd.h>

namespace
{

using Convex = fcl::Convex<double>;
using Tf = fcl::Transform3<double>;
using Vec = fcl::Vector3<double>;

struct FclCtx {
    std::vector<std::unique_ptr<Convex>> shapes;
    fcl::detail::GJKSolver_libccd<double> ccd;
    fcl::detail::GJKSolver_indep<double> indep;
};

struct FclPair {
    const Convex *a, *b;
    Tf tf_a, tf_b;
};

Tf to_tf(const gjk_transform &t)
{
    gjk_quat q = gjk_quat_normalize(t.q);
    Tf tf = Tf::Identity();
    tf.linear() = Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
    tf.translation() = Vec(t.p.x, t.p.y, t.p.z);
    return tf;
}

gjk_vec3 to_v(const Vec &v)
{
    return gjk_v3(v[0], v[1], v[2]);
}

void *fcl_open(const bench_world *w)
{
    FclCtx *ctx = new (std::nothrow) FclCtx;
    if (!ctx)
        return nullptr;
    for (int32_t i = 0; i < w->set->shape_count; i++) {
        const bench_hull &h = w->hulls[i];
        auto verts = std::make_shared<std::vector<Vec>>();
        for (int32_t k = 0; k < h.count; k++)
            verts->emplace_back(h.points[k].x, h.points[k].y, h.points[k].z);
        auto faces = std::make_shared<std::vector<int>>(h.faces, h.faces + h.faces_len);
        ctx->shapes.emplace_back(new Convex(verts, h.face_count, faces, false));
    }
    return ctx;
}

void fcl_close(void *p)
{
    delete static_cast<FclCtx *>(p);
}

void fcl_prepare(void *p, const gjk_case *c, void *out)
{
    FclCtx *ctx = static_cast<FclCtx *>(p);
    FclPair *pair = new (out) FclPair;
    pair->a = ctx->shapes[c->shape_a].get();
    pair->b = ctx->shapes[c->shape_b].get();
    pair->tf_a = to_tf(c->pose_a);
    pair->tf_b = to_tf(c->pose_b);
}

bench_answer blank()
{
    bench_answer a{};
    a.iterations = -1;
    return a;
}

void separated(bench_answer *out, bool ok, double dist, const Vec &pa, const Vec &pb)
{
    out->ok = ok;
    if (!ok)
        return;
    out->verdict = 1;
    out->has_sd = true;
    out->sd = dist;
    if (dist > 0.0) {
        out->has_normal = true;
        out->normal = gjk_normalize(to_v(pb - pa));
    }
}

template <typename Solver>
void intersect(const Solver &solver, const FclPair *pair, bool indep, bench_answer *out)
{
    std::vector<fcl::ContactPoint<double>> contacts;
    bool hit = solver.shapeIntersect(*pair->a, pair->tf_a, *pair->b, pair->tf_b, &contacts);
    out->ok = true;
    if (!hit) {
        out->verdict = 1;
        return;
    }
    out->verdict = -1;
    if (contacts.empty())
        return;
    const fcl::ContactPoint<double> &cp = contacts.back();
    double depth = indep ? -cp.penetration_depth : cp.penetration_depth;
    Vec n = indep ? Vec(pair->tf_a.linear() * cp.normal) : cp.normal;
    out->has_sd = true;
    out->sd = -depth;
    out->has_normal = true;
    out->normal = gjk_normalize(to_v(n));
}

void fcl_ccd_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)warm;
    FclCtx *ctx = static_cast<FclCtx *>(p);
    const FclPair *pair = static_cast<const FclPair *>(pr);
    *out = blank();
    try {
        if (kind == BENCH_DISTANCE) {
            double d = -1.0;
            Vec pa, pb;
            bool ok =
                ctx->ccd.shapeDistance(*pair->a, pair->tf_a, *pair->b, pair->tf_b, &d, &pa, &pb);
            if (ok)
                separated(out, true, d, pa, pb);
            else {
                out->ok = true;
                out->verdict = -1; // libccd distance: false with -1 on overlap
            }
        } else {
            intersect(ctx->ccd, pair, false, out);
        }
    } catch (...) {
        out->ok = false;
    }
}

void fcl_ccd_sd_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)warm;
    (void)kind;
    FclCtx *ctx = static_cast<FclCtx *>(p);
    const FclPair *pair = static_cast<const FclPair *>(pr);
    *out = blank();
    try {
        double d = 0.0;
        Vec pa, pb;
        // Returns false whenever d < 0 (GJKDistanceImpl), yet d then holds minus the depth.
        ctx->ccd.shapeSignedDistance(*pair->a, pair->tf_a, *pair->b, pair->tf_b, &d, &pa, &pb);
        out->ok = std::isfinite(d);
        if (!out->ok)
            return;
        out->verdict = d > 0.0 ? 1 : (d < 0.0 ? -1 : 0);
        out->has_sd = true;
        out->sd = d;
        if (d != 0.0) {
            // Separated: pb - pa is along +normal; overlapping: pa, pb are the deepest points
            // and pb - pa points from B to A.
            out->has_normal = true;
            out->normal = gjk_scale(gjk_normalize(to_v(pb - pa)), d > 0.0 ? 1.0 : -1.0);
        }
    } catch (...) {
        out->ok = false;
    }
}

void fcl_indep_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    FclCtx *ctx = static_cast<FclCtx *>(p);
    const FclPair *pair = static_cast<const FclPair *>(pr);
    *out = blank();
    double *guess = static_cast<double *>(warm);
    ctx->indep.enable_cached_guess = guess != nullptr;
    if (guess)
        ctx->indep.cached_guess = Vec(guess[0], guess[1], guess[2]);
    try {
        if (kind == BENCH_DISTANCE) {
            double d = -1.0;
            Vec pa, pb;
            bool ok =
                ctx->indep.shapeDistance(*pair->a, pair->tf_a, *pair->b, pair->tf_b, &d, &pa, &pb);
            if (ok)
                separated(out, true, d, pa, pb);
            else {
                out->ok = true;
                out->verdict = -1;
            }
        } else {
            intersect(ctx->indep, pair, true, out);
        }
    } catch (...) {
        out->ok = false;
    }
    if (guess) {
        const Vec &g = ctx->indep.cached_guess;
        guess[0] = g[0];
        guess[1] = g[1];
        guess[2] = g[2];
    }
}

void fcl_indep_sd_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)warm;
    (void)kind;
    FclCtx *ctx = static_cast<FclCtx *>(p);
    const FclPair *pair = static_cast<const FclPair *>(pr);
    *out = blank();
    ctx->indep.enable_cached_guess = false;
    try {
        double d = -1.0;
        Vec pa, pb;
        bool ok = ctx->indep.shapeSignedDistance(*pair->a, pair->tf_a, *pair->b, pair->tf_b, &d,
                                                 &pa, &pb);
        if (ok)
            separated(out, true, d, pa, pb);
        else {
            out->ok = true;
            out->verdict = -1; // no depth: 0.7's indep signed distance is plain distance
        }
    } catch (...) {
        out->ok = false;
    }
}

bench_engine make(const char *name, const char *calls, bool pen, size_t warm,
                  void (*q)(void *, const void *, bench_kind, void *, bench_answer *))
{
    bench_engine e{};
    e.name = name;
    e.calls = calls;
    e.distance = true;
    e.penetration = pen;
    e.warm_size = warm;
    e.warm_repeat = false;
    e.pair_size = sizeof(FclPair);
    e.open = fcl_open;
    e.close = fcl_close;
    e.prepare = fcl_prepare;
    e.query = q;
    return e;
}

const bench_engine fcl_engines[] = {
    make("fcl-ccd", "GJKSolver_libccd: shapeDistance / shapeIntersect (contacts)", true, 0,
         fcl_ccd_query),
    make("fcl-ccd-sd", "GJKSolver_libccd: shapeSignedDistance", true, 0, fcl_ccd_sd_query),
    make("fcl-indep", "GJKSolver_indep: shapeDistance / shapeIntersect (contacts), cached guess",
         true, 3 * sizeof(double), fcl_indep_query),
    make("fcl-indep-sd", "GJKSolver_indep: shapeSignedDistance (0.7: no depth)", false, 0,
         fcl_indep_sd_query),
};

static_assert(sizeof(FclPair) <= BENCH_PAIR_MAX, "pair buffer too small");

} // namespace

extern "C" int bench_engines_fcl(const bench_engine **out, int cap)
{
    int n = 0;
    for (const bench_engine &e : fcl_engines)
        if (n < cap)
            out[n++] = &e;
    return n;
}

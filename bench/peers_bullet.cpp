// peers_bullet.cpp — Bullet 3.24 (Debian libbullet-dev, double-precision build,
// pkg-config bullet-float64) as a benchmark peer.
//
//   bullet-gjk   btGjkPairDetector + btVoronoiSimplexSolver + btGjkEpaPenetrationDepthSolver,
//                getClosestPoints on every case (distance, or depth when overlapping); warm
//                start through the detector's cached separating axis. Iterations: m_curIter.
//   bullet-epa2  btGjkEpaSolver2::Distance on separated cases, ::Penetration on intersecting
//                ones; warm start through the `guess` argument (the previous answer's
//                separating vector, in A's frame, as the solver's Minkowski difference is).
// Shapes are btConvexHullShape over the hull vertices with every margin set to 0.
// Bullet's normals point from B to A (normalOnBInWorld); we negate them.
#include "peers.h"

#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

static_assert(sizeof(btScalar) == sizeof(double), "link the double-precision Bullet build");

namespace
{

struct BtCtx {
    std::vector<std::unique_ptr<btConvexHullShape>> shapes;
    btGjkEpaPenetrationDepthSolver epa;
};

struct BtPair {
    const btConvexHullShape *a, *b;
    btTransform tf_a, tf_b;
};

btTransform to_tf(const gjk_transform &t)
{
    gjk_quat q = gjk_quat_normalize(t.q);
    btTransform tf;
    tf.setRotation(btQuaternion(q.x, q.y, q.z, q.w)); // Bullet's order is (x, y, z, w)
    tf.setOrigin(btVector3(t.p.x, t.p.y, t.p.z));
    return tf;
}

gjk_vec3 to_v(const btVector3 &v)
{
    return gjk_v3(v.x(), v.y(), v.z());
}

void *bt_open(const bench_world *w)
{
    BtCtx *ctx = new (std::nothrow) BtCtx;
    if (!ctx)
        return nullptr;
    for (int32_t i = 0; i < w->set->shape_count; i++) {
        const bench_hull &h = w->hulls[i];
        auto *s = new btConvexHullShape();
        for (int32_t k = 0; k < h.count; k++)
            s->addPoint(btVector3(h.points[k].x, h.points[k].y, h.points[k].z), false);
        s->recalcLocalAabb();
        s->setMargin(0.0);
        ctx->shapes.emplace_back(s);
    }
    return ctx;
}

void bt_close(void *p)
{
    delete static_cast<BtCtx *>(p);
}

void bt_prepare(void *p, const gjk_case *c, void *out)
{
    BtCtx *ctx = static_cast<BtCtx *>(p);
    BtPair *pair = new (out) BtPair;
    pair->a = ctx->shapes[c->shape_a].get();
    pair->b = ctx->shapes[c->shape_b].get();
    pair->tf_a = to_tf(c->pose_a);
    pair->tf_b = to_tf(c->pose_b);
}

void bt_gjk_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)kind;
    BtCtx *ctx = static_cast<BtCtx *>(p);
    const BtPair *pair = static_cast<const BtPair *>(pr);
    btVoronoiSimplexSolver simplex;
    btGjkPairDetector detector(pair->a, pair->b, &simplex, &ctx->epa);
    double *axis = static_cast<double *>(warm);
    if (axis && (axis[0] != 0.0 || axis[1] != 0.0 || axis[2] != 0.0))
        detector.setCachedSeparatingAxis(btVector3(axis[0], axis[1], axis[2]));
    btGjkPairDetector::ClosestPointInput input;
    input.m_transformA = pair->tf_a;
    input.m_transformB = pair->tf_b;
    btPointCollector result;
    detector.getClosestPoints(input, result, nullptr);
    if (axis) {
        const btVector3 &c = detector.getCachedSeparatingAxis();
        axis[0] = c.x();
        axis[1] = c.y();
        axis[2] = c.z();
    }
    *out = bench_answer{};
    out->iterations = detector.m_curIter;
    out->code = detector.m_lastUsedMethod;
    out->ok = result.m_hasResult && std::isfinite(result.m_distance);
    if (!out->ok)
        return;
    double d = result.m_distance;
    out->verdict = d > 0.0 ? 1 : (d < 0.0 ? -1 : 0);
    out->has_sd = true;
    out->sd = d;
    out->has_normal = true;
    out->normal = gjk_neg(to_v(result.m_normalOnBInWorld));
}

void bt_epa2_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)p;
    const BtPair *pair = static_cast<const BtPair *>(pr);
    double *g = static_cast<double *>(warm);
    // v approximates GJK's closest point of the Minkowski difference A - B, which
    // btGjkEpaSolver2 builds in A's frame. Cold: the centre difference (Bullet's own
    // btGjkEpaPenetrationDepthSolver starts from it too); warm: the previous answer.
    const btMatrix3x3 &rot_a = pair->tf_a.getBasis();
    btVector3 v = (pair->tf_a.getOrigin() - pair->tf_b.getOrigin()) * rot_a;
    if (g && (g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0))
        v = btVector3(g[0], g[1], g[2]);
    // Distance() starts its search along -guess, Penetration() along +guess.
    btVector3 guess = kind == BENCH_DISTANCE ? v : -v;
    btGjkEpaSolver2::sResults r;
    bool sep = false, pen = false;
    if (kind == BENCH_DISTANCE)
        sep = btGjkEpaSolver2::Distance(pair->a, pair->tf_a, pair->b, pair->tf_b, guess, r);
    else
        pen = btGjkEpaSolver2::Penetration(pair->a, pair->tf_a, pair->b, pair->tf_b, guess, r);
    *out = bench_answer{};
    out->iterations = -1;
    out->code = static_cast<int32_t>(r.status);
    if (kind == BENCH_DISTANCE) {
        out->ok = sep || r.status == btGjkEpaSolver2::sResults::Penetrating;
        if (sep) {
            out->verdict = 1;
            out->has_sd = std::isfinite(r.distance);
            out->sd = r.distance;
            gjk_vec3 n = gjk_normalize(to_v(r.witnesses[1] - r.witnesses[0]));
            out->has_normal = gjk_length(n) > 0.0;
            out->normal = n;
        } else if (out->ok) {
            out->verdict = -1;
        }
    } else {
        out->ok = pen || r.status == btGjkEpaSolver2::sResults::Separated;
        if (pen) {
            out->verdict = -1;
            out->has_sd = std::isfinite(r.distance);
            out->sd = r.distance; // Penetration reports minus the depth
            // r.normal is in A's local frame (the solver works there); the world witnesses
            // differ by depth times the world normal, witnesses[0] - witnesses[1] = A to B.
            gjk_vec3 n = gjk_normalize(to_v(r.witnesses[0] - r.witnesses[1]));
            out->has_normal = gjk_length(n) > 0.0;
            out->normal = n;
        } else if (out->ok) {
            out->verdict = 1;
        }
    }
    if (g && out->ok && (sep || pen)) {
        btVector3 w = (r.witnesses[0] - r.witnesses[1]) * rot_a;
        if (w.length2() > 0.0) {
            g[0] = w.x();
            g[1] = w.y();
            g[2] = w.z();
        }
    }
}

bench_engine make(const char *name, const char *calls, size_t pair_size,
                  void (*q)(void *, const void *, bench_kind, void *, bench_answer *))
{
    bench_engine e{};
    e.name = name;
    e.calls = calls;
    e.distance = true;
    e.penetration = true;
    e.warm_size = 3 * sizeof(double);
    e.pair_size = pair_size;
    e.open = bt_open;
    e.close = bt_close;
    e.prepare = bt_prepare;
    e.query = q;
    return e;
}

const bench_engine bt_engines[] = {
    make("bullet-gjk",
         "btGjkPairDetector + btVoronoiSimplexSolver + btGjkEpaPenetrationDepthSolver, "
         "cached separating axis",
         sizeof(BtPair), bt_gjk_query),
    make("bullet-epa2", "btGjkEpaSolver2::Distance / ::Penetration, guess", sizeof(BtPair),
         bt_epa2_query),
};

static_assert(sizeof(BtPair) <= BENCH_PAIR_MAX, "pair buffer too small");

} // namespace

extern "C" int bench_engines_bullet(const bench_engine **out, int cap)
{
    int n = 0;
    for (const bench_engine &e : bt_engines)
        if (n < cap)
            out[n++] = &e;
    return n;
}

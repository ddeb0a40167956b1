// ccd_fcl.cpp — FCL 0.7's continuousCollide on primitive shapes (ccd_fcl.h).
// Shape conventions match gjk/shape.h: FCL's Box takes full side lengths, Capsule, Cylinder and
// Cone their radius and full length along z (the cone's base at -lz/2, apex at +lz/2).
#include "ccd_fcl.h"

#include <exception>
#include <memory>

#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/cone.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/continuous_collision.h>

namespace
{

using Tf = fcl::Transform3<double>;

std::shared_ptr<fcl::CollisionGeometry<double>> make(const gjk_shape *s)
{
    switch (s->kind) {
    case GJK_SHAPE_SPHERE:
        return std::make_shared<fcl::Sphere<double>>(s->radius);
    case GJK_SHAPE_CAPSULE:
        return std::make_shared<fcl::Capsule<double>>(s->radius, 2.0 * s->half_height);
    case GJK_SHAPE_BOX:
        return std::make_shared<fcl::Box<double>>(2.0 * s->half_extents.x, 2.0 * s->half_extents.y,
                                                  2.0 * s->half_extents.z);
    case GJK_SHAPE_CYLINDER:
        return std::make_shared<fcl::Cylinder<double>>(s->radius, 2.0 * s->half_height);
    case GJK_SHAPE_CONE:
        return std::make_shared<fcl::Cone<double>>(s->radius, 2.0 * s->half_height);
    default:
        return nullptr;
    }
}

Tf to_tf(gjk_transform t)
{
    gjk_quat q = gjk_quat_normalize(t.q);
    Tf tf = Tf::Identity();
    tf.linear() = Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
    tf.translation() = fcl::Vector3<double>(t.p.x, t.p.y, t.p.z);
    return tf;
}

} // namespace

extern "C" ccd_fcl_answer ccd_fcl_check(const gjk_shape *a, gjk_transform a_from,
                                        gjk_transform a_to, const gjk_shape *b,
                                        gjk_transform b_from, gjk_transform b_to,
                                        ccd_fcl_solver solver, int iterations)
{
    ccd_fcl_answer out = {false, false, 1.0};
    auto ga = make(a), gb = make(b);
    if (!ga || !gb)
        return out;
    fcl::ContinuousCollisionRequest<double> req;
    req.ccd_motion_type = fcl::CCDM_LINEAR;
    req.toc_err = 1e-6;
    if (iterations > 0)
        req.num_max_iterations = (std::size_t)iterations;
    req.ccd_solver_type =
        solver == CCD_FCL_NAIVE ? fcl::CCDC_NAIVE : fcl::CCDC_CONSERVATIVE_ADVANCEMENT;
    req.gjk_solver_type = solver == CCD_FCL_CA_INDEP ? fcl::GST_INDEP : fcl::GST_LIBCCD;
    fcl::ContinuousCollisionResult<double> res;
    try {
        double t = fcl::continuousCollide(ga.get(), to_tf(a_from), to_tf(a_to), gb.get(),
                                          to_tf(b_from), to_tf(b_to), req, res);
        out.ok = t >= 0.0;
        out.collide = res.is_collide;
        out.toc = res.time_of_contact;
    } catch (const std::exception &) {
        out.ok = false;
    }
    return out;
}

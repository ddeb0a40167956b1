/* The C example of the README, compiled with the project so it cannot rot. */
#include <gjk/gjk.h>
#include <stdio.h>

int main(void)
{
    /* A unit box and a capsule (radius 0.1, axis z, half-height 0.3), 5 cm safety margin. */
    gjk_shape box = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_shape tool = gjk_make_capsule(0.1, 0.3);
    tool.margin = 0.05;

    gjk_transform box_pose = gjk_transform_identity();
    gjk_transform tool_pose = gjk_transform_make(
        gjk_quat_from_axis_angle(gjk_v3(1, 0, 0), 0.5), /* (w, x, y, z) */
        gjk_v3(0.0, 0.2, 1.1));

    gjk_cache cache = {0}; /* zeroed: cold start; keep it per pair for warm starts */
    gjk_options options = gjk_default_options();
    gjk_result r = gjk_signed_distance(&box, box_pose, &tool, tool_pose, &cache, &options);

    printf("%s: distance %.6f m\n", gjk_status_name(r.status), r.distance);
    printf("on box  (%.4f %.4f %.4f)\n", r.point_a.x, r.point_a.y, r.point_a.z);
    printf("on tool (%.4f %.4f %.4f)\n", r.point_b.x, r.point_b.y, r.point_b.z);
    printf("normal  (%.4f %.4f %.4f), %d GJK iterations\n", r.normal.x, r.normal.y, r.normal.z,
           r.iterations);
    return r.status == GJK_STATUS_INVALID_INPUT;
}

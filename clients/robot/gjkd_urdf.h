/* gjkd_urdf.h — a URDF (+ SRDF) robot description with its collision meshes -> a gjkd.v1 Robot
 * with joints, ready for put_robot (libgjkd-urdf, clients layer; never linked into the daemon:
 * the XML and mesh parsers run only in the client that reads the files).
 *
 * What is read
 *  - URDF (libxml2, no network, no DTD loading, no entity substitution; a document declaring
 *    entities is refused): <robot name>, every <link> with its <collision> elements (a link
 *    without one gets no parts and never collides), every <joint>. <visual>, <inertial>,
 *    <transmission>, <gazebo> and unknown top-level elements are ignored; xacro elements are
 *    refused ("run xacro first").
 *  - Collision geometry: <origin xyz rpy> (rpy fixed-axis roll, pitch, yaw, gjk_quat_from_rpy)
 *    becomes the part pose; <box size> (full sizes -> half-extents), <cylinder radius length>
 *    (axis z, as gjkd's), <sphere radius>, <capsule radius length> (the URDF extension some
 *    tools write; length of the segment) stay exact primitives; <mesh filename scale> becomes
 *    convex parts (below).
 *  - Joints: fixed, revolute, continuous, prismatic with <origin>, <axis xyz> (default 1 0 0),
 *    <limit lower upper> (required for revolute and prismatic, as in urdfdom; missing
 *    attributes are 0, and lower == upper gets a note: the joint cannot move), <mimic joint
 *    multiplier offset> (defaults 1, 0; a mimic of a mimic is flattened into a mimic of the
 *    active joint, with a note). floating and planar joints are refused,
 *    naming the joint: gjkd has no multi-DOF joints (a mobile or floating base is the robot's
 *    base pose).
 *  - SRDF (optional): every <disable_collisions link1 link2> becomes a disabled pair; other
 *    elements are ignored.
 *  - Adjacent links (default on): each link with collision geometry is disabled against its
 *    nearest ancestor that has collision geometry (as MoveIt's setup assistant decides), so a
 *    link behind geometry-less frames (a flange, a tool frame) is still paired with its real
 *    neighbour.
 *
 * Meshes (.stl ASCII and binary, .obj, .dae; case-insensitive; each file read into memory
 * after its size check): package://PKG/REST (also package:///PKG/REST) is looked up as
 * DIR/PKG/REST for each package path in order, then as A/REST for each directory A named PKG
 * above the URDF (its absolute path: the ROS source layout, no package path needed);
 * file:///ABS and absolute paths are used as they are; other paths are relative to the
 * URDF's directory. Every sub-mesh of a file — as V-HACD and CoACD export pre-decomposed
 * convex pieces: an OBJ "o"/"g" group, an ASCII STL "solid", a COLLADA (node, mesh) instance
 * — becomes one part: the convex hull (qhull, gjk_hull_build) of its vertices after the file's
 * node transforms and the URDF scale, sent as ConvexVertices with their adjacency (only hull
 * vertices travel, never the raw mesh). The part pose is the collision origin. A file with
 * more sub-meshes than max_parts_per_link becomes one hull of all of them (noted). Hulling a
 * non-convex mesh covers it conservatively; a note per mesh says "hulled N vertices -> M" (N:
 * an OBJ group's distinct vertices, an STL's triangle corners).
 *
 * Precision and parsers. Debian's assimp is built with float (ai_real = float), and no C
 * library in Debian reads OBJ or STL in double, so the two text formats are read here, in
 * double (strtod): OBJ ("v", "f" with i, i/t, i//n, i/t/n and negative indices, "o", "g";
 * everything else ignored) and ASCII STL ("solid", "vertex"). Binary STL (an 84 + 50 n byte
 * file, whatever its header says) and COLLADA go through assimp's C API: binary STL stores
 * float32, so it is exact; COLLADA coordinates are float32, within 2^-24 relative of the
 * decimal text (1.3e-8 m measured on 17-digit coordinates below 1 m, tests/test_robot_import).
 * COLLADA: the <unit meter> scale is applied, the <up_axis> is ignored (the file's coordinates
 * are the link frame's, as rviz and MoveIt use them; assimp would otherwise rotate Z_UP files
 * to Y_UP). A mesh file used by several collisions with the same scale is read once.
 *
 * Limits (gjkd_urdf_options) are checked before the work they bound: file sizes before
 * reading, link/joint counts before building, vertex counts before hulling.
 *
 * Errors: one line naming the file, the line and the element, e.g.
 *   "robot.urdf:42: joint \"elbow\": type \"floating\" is not supported (...)",
 *   "robot.urdf:17: link \"base\": collision[1]: mesh \"package://p/m.stl\": not found (tried
 *    /a/p/m.stl, /b/p/m.stl)".
 * Threads: one import at a time per process (assimp's C API keeps its last error in a global;
 * libxml2 initialises itself on first use). No global state of its own. */
#ifndef GJKD_URDF_H
#define GJKD_URDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gjkd/v1/gjkd.pb-c.h"

/* Defaults of gjkd_urdf_options; they accept the arms and mobile manipulators of the public
 * collections (a COLLADA link of 22,165 vertices is far below the vertex limit). */
#define GJKD_URDF_DEFAULT_MAX_XML_BYTES (32u * 1024u * 1024u)   /* URDF, SRDF */
#define GJKD_URDF_DEFAULT_MAX_MESH_BYTES (256u * 1024u * 1024u) /* each mesh file */
#define GJKD_URDF_DEFAULT_MAX_MESH_VERTICES 4000000u            /* each mesh file */
#define GJKD_URDF_DEFAULT_MAX_LINKS 1024u /* gjk's kinematics limit (GJK_KINEMATICS_MAX_LINKS) */
#define GJKD_URDF_DEFAULT_MAX_JOINTS 1023u
#define GJKD_URDF_DEFAULT_MAX_PARTS_PER_LINK 256u /* gjkd's default max-parts-per-body */

typedef struct gjkd_urdf_options {
    const char *srdf_path;            /* NULL or "": no SRDF */
    const char *name;                 /* NULL or "": the URDF's <robot name> */
    const char *const *package_paths; /* package_path_count directories for package:// */
    size_t package_path_count;
    bool disable_adjacent; /* disable each link against its nearest ancestor with geometry */
    size_t max_xml_bytes;
    size_t max_mesh_bytes;
    uint32_t max_mesh_vertices;
    uint32_t max_links;
    uint32_t max_joints;
    uint32_t max_parts_per_link;
} gjkd_urdf_options;

/* Fills *o with the defaults above (no SRDF, no package paths, disable_adjacent true). */
void gjkd_urdf_options_init(gjkd_urdf_options *o);

typedef struct gjkd_urdf_result {
    Gjkd__V1__Robot *robot; /* malloc'd throughout: gjkd__v1__robot__free_unpacked(robot, NULL) */
    char **notes;           /* note_count malloc'd lines: per mesh, what was hulled */
    size_t note_count;
    uint32_t mesh_files;    /* distinct mesh files read */
    uint64_t mesh_vertices; /* vertices read from them (all instances) */
    uint64_t hull_vertices; /* vertices sent (all mesh parts) */
    uint32_t dof;           /* active joints (not fixed, not mimic) */
} gjkd_urdf_result;

#define GJKD_URDF_ERROR_SIZE 1024

/* Imports urdf_path (options may be NULL: the defaults). True with *out filled (the caller
 * frees it with gjkd_urdf_result_free); false with *out zeroed and a one-line message in err
 * (err_size bytes, GJKD_URDF_ERROR_SIZE is enough; err may be NULL). */
bool gjkd_urdf_import(const char *urdf_path, const gjkd_urdf_options *options,
                      gjkd_urdf_result *out, char *err, size_t err_size);

/* Frees what gjkd_urdf_import put in *r and zeroes it. Safe on a zeroed result. */
void gjkd_urdf_result_free(gjkd_urdf_result *r);

/* Takes the robot out of *r (the caller owns it from then on; r->robot becomes NULL). */
Gjkd__V1__Robot *gjkd_urdf_result_take_robot(gjkd_urdf_result *r);

#endif /* GJKD_URDF_H */

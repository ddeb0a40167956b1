# Kinematic trees (core/src/kinematics.c): forward kinematics against an independent reference,
# gradients against finite differences, every refusal.
gjk_add_test(test_kinematics SOURCES test_kinematics.c LABELS unit TIMEOUT 120)

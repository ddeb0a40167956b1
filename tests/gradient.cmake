# The subgradient flag when a polytope meets a closed-form shape (world_gradient.c decides the
# closed-form side first), label unit: the flag the geometry gives, both body orders.
gjk_add_test(test_gradient_features SOURCES test_gradient_features.c LABELS unit TIMEOUT 60)

# The GJK engine (core/src/support.c, gjk.c, query.c): closed forms, caches, invalid input.
gjk_add_test(test_gjk_basic SOURCES test_gjk_basic.c LABELS unit TIMEOUT 60)

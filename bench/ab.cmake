# Side-by-side timing of two builds of the core (scripts/ab): gjk-ab loads two shared builds
# of libgjk with dlopen; gjk_ab_module is this tree's build as such a module (the static
# core, whole, linked into a shared object: only the GJK_API symbols are exported).
add_executable(gjk-ab ${CMAKE_CURRENT_SOURCE_DIR}/ab_core.c ${CMAKE_CURRENT_SOURCE_DIR}/bench_cases.c)
target_include_directories(gjk-ab PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(gjk-ab PRIVATE gjk_cases gjk_warnings PkgConfig::QHULL_R ${CMAKE_DL_LIBS})
add_library(gjk_ab_module MODULE ${CMAKE_CURRENT_SOURCE_DIR}/ab_module.c)
target_link_libraries(gjk_ab_module PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,gjk::core>")
set_target_properties(gjk_ab_module PROPERTIES OUTPUT_NAME gjk_ab PREFIX lib)

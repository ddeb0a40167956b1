# shapes_demo: signed distance, witnesses and normals for a few shape pairs (scripts/demo).
add_executable(shapes_demo ${CMAKE_CURRENT_SOURCE_DIR}/shapes_demo.c)
target_link_libraries(shapes_demo PRIVATE gjk::core gjk_warnings)
set_target_properties(shapes_demo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)

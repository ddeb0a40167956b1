# The Python client as users install it (label python): tests/python/test_install.py makes a
# venv (/usr/bin/python3 -m venv --system-site-packages), runs `pip install --no-build-isolation
# --no-deps --no-index ./clients/python` (no package index), checks that the source tree is
# left as it was and that the package carries the gjkd_pb2 its build generated, then, from a
# directory outside the repository and with no GJKD_* variable, imports gjkd, serialises a
# Request, and asks a gjkd on a free loopback port for health; GJKD_PYTHON_PROTO still
# overrides, and the build hook's failures (no protoc, no repository) say so. ~6 s.
if(TARGET gjkd AND TARGET gjkd_proto_py)
  find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(GJK_SYSTEM_PYTHON)
    add_test(NAME python_install
             COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_install.py
                     --source-dir ${PROJECT_SOURCE_DIR} --gjkd $<TARGET_FILE:gjkd>
                     --python-proto ${CMAKE_BINARY_DIR}/python)
    set_tests_properties(python_install PROPERTIES LABELS python TIMEOUT 60)
  endif()
endif()

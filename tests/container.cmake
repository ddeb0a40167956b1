# Container smoke test (docker/smoke-test.sh): builds the image in a throw-away podman store,
# runs it with --demo, checks health, drain, the state volume, three replicas, and docker/k8s
# under `podman kube play` (probes, a ConfigMap scene change picked up, clean stop); 45-120 s
# with the cached base image, about 3 min without. Label `container` (ctest -L container).
# Skipped (exit 77) without podman, debootstrap or root. Not in sanitizer builds: the image
# compiles its own release binaries, so a second run would test nothing new.
if(TARGET gjkd AND TARGET gjkctl AND TARGET gjkd_proto_py AND NOT GJK_SANITIZE
   AND NOT GJK_SANITIZE_THREAD)
  add_test(NAME container_smoke
    COMMAND ${PROJECT_SOURCE_DIR}/docker/smoke-test.sh --gjkctl $<TARGET_FILE:gjkctl>
            --python-proto ${CMAKE_BINARY_DIR}/python)
  set_tests_properties(container_smoke PROPERTIES
    LABELS container TIMEOUT 900 SKIP_RETURN_CODE 77
    # Runs alone: it needs both cores for the image build and reserves host ports.
    RUN_SERIAL TRUE)
endif()
